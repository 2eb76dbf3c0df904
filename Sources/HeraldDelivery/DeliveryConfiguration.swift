import Foundation

/// How one instance's engine works. Every instance may differ; they share work through
/// chunk leases in the database.
public struct DeliveryConfiguration: Sendable {
    /// Names this instance in chunk leases (and logs): unique per running process.
    public var owner: String
    /// Chunks worked on at once.
    public var workers = 4
    /// Devices read, rendered, sent and recorded together.
    public var batchSize = Self.defaultBatchSize
    /// 2,000: each batch's statements (the read, the in-flight mark, the lock, the counters, a
    /// transaction) cost PostgreSQL about a millisecond whatever its size, and 2,000 pays it half
    /// as often as 1,000 did; a worker's memory grows with it (BENCHMARKS.md, "Batches of 2,000").
    public static let defaultBatchSize = 2000
    /// How long a claimed chunk stays this instance's without a heartbeat; a crashed
    /// instance's chunks are taken over after it.
    public var leaseDuration = Duration.seconds(30)
    /// How often due campaigns and free chunks are looked for when there is nothing to do.
    public var pollInterval = Duration.seconds(1)
    /// The longest a batch may stay in flight (sent, answers not yet recorded). The sender's own
    /// deadlines end every batch well before it; past this one the worker stops renewing its
    /// lease, so that another instance takes the chunk over instead of it being held for ever.
    public var batchDeadline = Duration.seconds(300)
    /// How long a chunk whose work failed (the database or a Citus worker unreachable) waits
    /// before any instance claims it again; meanwhile the engine's workers take other chunks.
    public var failedChunkHold = Duration.seconds(5)
    /// Attempts a device answered 429 TooManyRequests gets in one campaign (1: no retry).
    public var deferredAttempts = 3
    /// The wait before a deferred device's second attempt; it doubles for each one after.
    public var deferredRetryDelay = Duration.seconds(120)
    /// The time local-time moments and quiet hours are judged by; the wall clock but in tests.
    public var clock: @Sendable () -> Date = { Date() }

    public init(owner: String) {
        self.owner = owner
    }
}
