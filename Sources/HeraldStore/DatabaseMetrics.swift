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
}
