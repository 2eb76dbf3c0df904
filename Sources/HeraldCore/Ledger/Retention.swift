import Foundation

/// How long Herald keeps what grows without bound (docs/admin.md "Retention"): days per table,
/// 1 to 3,650 each.
public struct RetentionPolicy: Sendable, Equatable {
    public static let maximumDays = 3_650

    /// A finished campaign's delivery ledger, counted from when the campaign finished. Its
    /// figures (counters, charts, report) stay: they are kept per chunk, not per device.
    public var deliveriesDays = 180
    /// The transactional ledger (`notifications`).
    public var notificationsDays = 90
    /// Campaign test sends.
    public var testDeliveriesDays = 30
    /// Opens and conversions, counted from when they arrived.
    public var eventsDays = 400
    /// The audit log.
    public var auditDays = 730
    /// Webhook messages delivered or given up on, counted from then (pending ones stay).
    public var webhookMessagesDays = 30

    public init() {}

    /// Every period that is out of bounds, each naming its setting.
    public func validate() -> [ValidationError] {
        let periods: [(String, Int)] = [
            ("deliveriesDays", deliveriesDays), ("notificationsDays", notificationsDays),
            ("testDeliveriesDays", testDeliveriesDays), ("eventsDays", eventsDays), ("auditDays", auditDays),
            ("webhookMessagesDays", webhookMessagesDays),
        ]
        return periods.compactMap { field, days in
            (1...Self.maximumDays).contains(days)
                ? nil : ValidationError(field: field, reason: "must be 1 to \(Self.maximumDays) days")
        }
    }
}

/// What one retention run deleted (or, in a dry run, would delete), by table.
public struct RetentionResult: Sendable, Equatable {
    public var deliveries = 0
    /// Finished campaigns whose delivery ledger was deleted.
    public var campaigns = 0
    /// Partitions of the ledger (the campaigns created in one month) dropped whole; their rows
    /// are counted in `deliveries`.
    public var ledgerPartitions = 0
    public var notifications = 0
    public var testDeliveries = 0
    public var events = 0
    public var audit = 0
    public var webhookMessages = 0

    public init() {}

    public var total: Int { deliveries + notifications + testDeliveries + events + audit + webhookMessages }
}

/// Deletes what is older than the policy allows, in small batches.
public protocol RetentionStore: Sendable {
    /// Nil when another instance is running retention now (one at a time, by advisory lock).
    /// A run that deletes (not a dry run) is audited as `retention.run` by `actor`, with what
    /// it deleted per table and the policy it applied.
    func purge(
        _ policy: RetentionPolicy, now: Date, batchSize: Int, dryRun: Bool, actor: String
    ) async throws
        -> RetentionResult?
}
