import APNSCore
import Foundation
import HeraldCore
import Synchronization

/// `CampaignWorkQueue` in memory, for one chunk of one campaign: the engine's side of the
/// store as `ChunkRunner` sees it, so the runner's branches are tested in milliseconds beside
/// the end-to-end tests on PostgreSQL. It serves its devices in ID order (the audience filter is
/// SQL's business and is not applied here), keeps each device's first outcome as the ledger does,
/// and can be told to refuse: the campaign no longer running, the lease lost at a given batch.
public final class InMemoryCampaignWork: CampaignWorkQueue {
    public struct State: Sendable {
        public var devices: [Device]
        /// False: `markInFlight` answers that the campaign stopped running (paused, cancelled).
        public var running = true
        /// The lease is lost at this `recordBatch` call (1 for the first).
        public var loseLeaseAtBatch: Int?
        /// This `recordBatch` call fails as if the database could not be reached (1 for the first).
        public var failRecordAtBatch: Int?
        /// The last device of the batch marked in flight and not recorded yet.
        public var inFlightTo: Int64?
        /// Devices that get no place under the caps.
        public var overCap: Set<Int64> = []
        public var records: [Int64: DeliveryRecord] = [:]
        public var attempts: [Int64: Int] = [:]
        public var invalidations: [DeviceInvalidation] = []
        public var cursor: Int64 = 0
        public var batches = 0
        /// What happened to the chunk and the campaign, in order: `completed`, `released`,
        /// `held`, `failed: <reason>`.
        public var events: [String] = []

        public init(devices: [Device]) {
            self.devices = devices.sorted { $0.id < $1.id }
        }
    }

    public let state: Mutex<State>

    public init(devices: [Device]) {
        state = Mutex(State(devices: devices))
    }

    public var snapshot: State { state.withLock { $0 } }

    public func nextDevices(
        _ lease: ChunkLease, filter: AudienceFilter, after cursor: Int64, limit: Int
    ) async throws
        -> [CampaignDevice]
    {
        state.withLock { state in state.devices.lazy.filter { $0.id > cursor }.prefix(limit).map(CampaignDevice.init) }
    }

    public func markInFlight(_ lease: ChunkLease, upTo deviceID: Int64) async throws -> Bool {
        state.withLock { state in
            if state.running { state.inFlightTo = deviceID }
            return state.running
        }
    }

    public func recordBatch(
        _ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation], cursor: Int64
    ) async throws -> BatchReceipt {
        try state.withLock { state in
            state.batches += 1
            if let lost = state.loseLeaseAtBatch, state.batches >= lost { throw CampaignWorkError.leaseLost }
            if state.failRecordAtBatch == state.batches { throw InMemoryWorkError.unreachable }
            var recorded = 0
            for record in records where state.records[record.deviceID] == nil {
                state.records[record.deviceID] = record
                state.attempts[record.deviceID] = 1
                recorded += 1
            }
            state.invalidations += invalidations
            state.cursor = cursor
            state.inFlightTo = nil
            return BatchReceipt(recorded: recorded, invalidated: invalidations.count)
        }
    }

    public func hasDeferred(_ lease: ChunkLease) async throws -> Bool {
        state.withLock { state in state.records.values.contains { $0.outcome == .deferred } }
    }

    public func retryableDevices(_ lease: ChunkLease, now: Date, limit: Int) async throws -> [(device: CampaignDevice, attempts: Int)] {
        state.withLock { state in
            let due = state.devices.filter { device in
                guard let record = state.records[device.id], record.outcome == .deferred, let at = record.retryAt else { return false }
                return at <= now
            }
            return due.prefix(limit).map { (CampaignDevice($0), state.attempts[$0.id] ?? 1) }
        }
    }

    public func nextRetry(_ lease: ChunkLease) async throws -> Date? {
        state.withLock { state in
            state.records.values.filter { $0.outcome == .deferred }.compactMap(\.retryAt).min()
        }
    }

    public func recordRetries(_ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation]) async throws {
        state.withLock { state in
            for record in records {
                state.records[record.deviceID] = record
                state.attempts[record.deviceID, default: 1] += 1
            }
            state.invalidations += invalidations
        }
    }

    public func reserve(_ lease: ChunkLease, deviceIDs: [Int64], caps: [FrequencyCap], now: Date) async throws -> Set<Int64> {
        state.withLock { state in Set(deviceIDs).subtracting(state.overCap) }
    }

    public func release(_ lease: ChunkLease, deviceIDs: [Int64]) async throws {}

    public func heartbeat(_ lease: ChunkLease, leaseDuration: Duration) async throws {
        let held = state.withLock { $0.loseLeaseAtBatch == nil || $0.batches < $0.loseLeaseAtBatch! }
        if !held { throw CampaignWorkError.leaseLost }
    }

    public func holdChunk(_ lease: ChunkLease, until: Date) async throws {
        state.withLock { $0.events.append("held") }
    }

    public func completeChunk(_ lease: ChunkLease, actor: String) async throws -> Campaign? {
        state.withLock { $0.events.append("completed") }
        return nil
    }

    public func releaseChunk(_ lease: ChunkLease, hold: Duration) async throws {
        state.withLock { $0.events.append(hold == .zero ? "released" : "released for \(hold)") }
    }

    public func failCampaign(_ lease: ChunkLease, reason: String, actor: String) async throws -> Bool {
        state.withLock { state in
            state.running = false
            state.events.append("failed: \(reason)")
        }
        return true
    }

    public func bookRate(campaignID: Int64, count: Int, rate: Int) async throws -> Duration { .zero }

    // The scheduler's side: one chunk needs none of it.
    public func startDueCampaigns(limit: Int, actor: String, now: Date) async throws -> [Campaign] { [] }
    public func claimChunk(
        owner: String, leaseDuration: Duration, now: Date, excludingApps: [Int64]
    ) async throws
        -> ChunkLease?
    { nil }
    public func pruneFrequencySends(before: Date) async throws -> Int { 0 }
    public func listenForWork(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await Task.sleep(for: duration)
    }
}

/// `SenderDirectory` in memory: every environment's sender answers each notification as
/// `answer` says for its token (200 when it says nothing), and counts what it was given; an
/// environment in `unavailable` has no sender, for that reason.
public final class InMemorySenders: SenderDirectory, NotificationSender {
    public let bundleID = "com.example.memory"
    private let answer: @Sendable (APNSNotification) -> SendResult
    private let unavailable: [APNSEnvironment: SendFailure]
    private let sent = Mutex<[APNSNotification]>([])

    public init(
        unavailable: [APNSEnvironment: SendFailure] = [:],
        answer: @escaping @Sendable (APNSNotification) -> SendResult = { _ in .answered(APNSResponse(status: 200)) }
    ) {
        self.answer = answer
        self.unavailable = unavailable
    }

    /// Every notification sent, in order.
    public var notifications: [APNSNotification] { sent.withLock { $0 } }

    public func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender {
        if let failure = unavailable[environment] { throw failure }
        return self
    }

    public func send(_ notifications: [APNSNotification]) async -> [SendResult] {
        sent.withLock { $0 += notifications }
        return notifications.map(answer)
    }
}

/// A failure of the in-memory store that is not the lease's.
public enum InMemoryWorkError: Error {
    case unreachable
}
