import HeraldCore
import Metrics

/// Database work as `/metrics` shows it: operations in flight (each holds one pooled
/// connection, so this is the pool's use), their duration by operation, and failures.
public enum DatabaseMetrics {
    static let inFlight = Meter(label: "herald_db_operations_in_flight")

    static func measure<Result>(_ operation: StaticString, _ body: () async throws -> Result) async throws -> Result {
        let start = ContinuousClock.now
        inFlight.increment()
        defer {
            inFlight.decrement()
            Timer(label: "herald_db_operation_duration", dimensions: [("operation", "\(operation)")])
                .recordNanoseconds(Int64((ContinuousClock.now - start) / .nanoseconds(1)))
        }
        do {
            return try await body()
        } catch {
            Counter(label: "herald_db_operation_errors", dimensions: [("operation", "\(operation)")]).increment()
            throw error
        }
    }

    /// Publishes the pool's size beside its use.
    public static func recordPoolSize(_ maximumConnections: Int) {
        Gauge(label: "herald_db_pool_max_connections").record(maximumConnections)
    }

    /// Devices invalidated by APNs's 410s, after their transaction committed; `source` is
    /// `campaign`, or `direct` for transactional and campaign test sends.
    static func invalidated(_ count: Int, source: String) {
        guard count > 0 else { return }
        Counter(label: "herald_devices_invalidated", dimensions: [("source", source)]).increment(by: count)
    }

    /// Campaign outcomes recorded, by outcome, after their transaction committed. A batch sent
    /// again after a crash counts again here, though the ledger keeps a device's first outcome.
    static func recorded(_ records: [DeliveryRecord]) {
        var counts = [String: Int]()
        for record in records { counts[record.outcome.kind.rawValue, default: 0] += 1 }
        for (outcome, count) in counts {
            Counter(label: "herald_campaign_outcomes", dimensions: [("outcome", outcome)]).increment(by: count)
        }
    }

    /// A batch whose plain ledger INSERT met a device that had its row, recorded again with
    /// `ON CONFLICT DO NOTHING` (PostgresCampaignWork.recordBatch).
    static func ledgerConflict() {
        Counter(label: "herald_ledger_conflicts").increment()
    }

    /// A registration statement written: one per statement, and its rows when it combined several.
    static func registrationStatement(rows: Int) {
        registrationStatements.increment()
        if rows > 1 { registrationsCombined.increment(by: rows) }
    }

    private static let registrationStatements = Counter(label: "herald_registration_statements")
    private static let registrationsCombined = Counter(label: "herald_registrations_combined")

    static func deadlockRetried() {
        Counter(label: "herald_deadlock_retries").increment()
    }
}
