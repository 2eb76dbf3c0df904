import Foundation

/// The engine's side of campaigns (docs/rules.md rule 2): starting due campaigns, claiming chunks
/// under a lease, streaming their devices and recording each batch. Every write checks the
/// lease token and throws ``CampaignWorkError/leaseLost`` (writing nothing) when another
/// worker has taken the chunk over since.
public protocol CampaignWorkQueue: Sendable {
    /// Starts up to `limit` scheduled campaigns whose send time has come, each in its own
    /// transaction (claimed with `FOR UPDATE SKIP LOCKED`, so instances never start one twice):
    /// freezes the audience bound and size and creates the chunks. Returns the started campaigns.
    func startDueCampaigns(limit: Int, actor: String, now: Date) async throws -> [Campaign]
    /// Claims a pending chunk of a running campaign whose lease is free or expired and whose
    /// zone is due by `now` (the engine's clock), with a new lease token; nil when there is none.
    /// Chunks of the apps in `excludingApps` are left for other instances (this one cannot open
    /// their credentials).
    func claimChunk(owner: String, leaseDuration: Duration, now: Date, excludingApps: [Int64]) async throws -> ChunkLease?
    /// Gives the chunk back until `until` (its next retry, the end of its zone's quiet hours).
    func holdChunk(_ lease: ChunkLease, until: Date) async throws
    /// Extends the lease; throws ``CampaignWorkError/leaseLost`` when it was lost (the worker
    /// must stop).
    func heartbeat(_ lease: ChunkLease, leaseDuration: Duration) async throws
    /// The chunk's next audience devices after `cursor` (a device ID), in ID order, up to the
    /// frozen bound.
    func nextDevices(
        _ lease: ChunkLease, filter: AudienceFilter, after cursor: Int64, limit: Int
    ) async throws
        -> [CampaignDevice]
    /// Notes how far the batch about to be sent goes, before it is sent. Returns false, noting
    /// nothing, when the campaign is no longer running (paused, cancelled, failed): the worker
    /// then gives the chunk back.
    @discardableResult
    func markInFlight(_ lease: ChunkLease, upTo deviceID: Int64) async throws -> Bool
    /// In one transaction: inserts the outcomes (a device's first outcome wins), counts what
    /// was inserted, applies the invalidations and advances the chunk's cursor to `cursor`.
    func recordBatch(
        _ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation], cursor: Int64
    ) async throws -> BatchReceipt
    /// Reserves each device a place under `caps` at `now`, in one transaction that locks the
    /// devices' rows, so concurrent campaigns and instances take turns per device and none can
    /// take a last place twice. Returns the devices that got one; a device this campaign
    /// reserved before (its batch resent after a crash) keeps its place. Throws
    /// ``CampaignWorkError/leaseLost`` (reserving nothing) when the lease was lost.
    func reserve(_ lease: ChunkLease, deviceIDs: [Int64], caps: [FrequencyCap], now: Date) async throws -> Set<Int64>
    /// Gives back the places of devices whose notification was not accepted.
    func release(_ lease: ChunkLease, deviceIDs: [Int64]) async throws
    /// Deletes places older than `before` (no cap's window reaches them); returns how many.
    @discardableResult
    func pruneFrequencySends(before: Date) async throws -> Int
    /// Books `count` sends of a campaign limited to `rate` a second, on one timeline shared by
    /// every worker of every instance; returns how long to wait before sending them (zero when
    /// their slot has started).
    func bookRate(campaignID: Int64, count: Int, rate: Int) async throws -> Duration
    /// Whether any of the chunk's devices is `deferred` (answered 429, final or waiting for a
    /// retry); nearly always false, and then the chunk's retry phase reads nothing more.
    func hasDeferred(_ lease: ChunkLease) async throws -> Bool
    /// The chunk's devices whose `deferred` row is due to be tried again by `now`, in ID order,
    /// with the attempts made so far.
    func retryableDevices(_ lease: ChunkLease, now: Date, limit: Int) async throws -> [(device: CampaignDevice, attempts: Int)]
    /// When the chunk's next deferred device is due; nil when none is left to try (rows of
    /// devices that are no longer valid are made final first).
    func nextRetry(_ lease: ChunkLease) async throws -> Date?
    /// In one transaction, like ``recordBatch(_:records:invalidations:cursor:)`` but over rows
    /// already `deferred`: each becomes its new outcome (a `deferred` one with its next
    /// `retryAt`, or final without) and the counters move with it.
    func recordRetries(_ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation]) async throws
    /// Calls `wake` whenever another process signals new work (a campaign scheduled, started or
    /// resumed), until `duration` has passed or the wait fails; the caller listens again. The
    /// engine still polls: this only makes it start sooner.
    func listenForWork(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws
    /// Marks the chunk done and, in the same transaction, completes its campaign when it was
    /// the last pending chunk of a running campaign: the one place a campaign completes (a
    /// resume that finds every chunk done completes it too, in ``CampaignRepository``'s
    /// transition). Returns the campaign when this completed it.
    @discardableResult
    func completeChunk(_ lease: ChunkLease, actor: String) async throws -> Campaign?
    /// Gives the chunk up before its lease expires, so another worker can claim it after
    /// `hold`: at once (`.zero`) on pause, cancel or shutdown; after a while when its work
    /// failed (a database worker down), so that the chunk does not go to the head of the queue
    /// again and again ahead of chunks that can be sent. Does nothing if the lease was lost.
    func releaseChunk(_ lease: ChunkLease, hold: Duration) async throws
    /// Fails the lease's campaign with `reason` (shown to users, so never a secret) and gives the
    /// chunk back: the one way the engine fails a campaign. False when the campaign had already
    /// finished (another worker failed it first, or it was cancelled).
    func failCampaign(_ lease: ChunkLease, reason: String, actor: String) async throws -> Bool
    /// Records up to `limit` runs of active series due by `now`, each in its own transaction
    /// with its series locked (`FOR UPDATE SKIP LOCKED`, and one row per run number, so
    /// instances and restarts never start a run twice): a campaign created and scheduled, or
    /// the run skipped, missed or failed with its reason. Returns the runs recorded.
    func runDueSeries(limit: Int, actor: String, now: Date) async throws -> [SeriesRun]
}

extension CampaignWorkQueue {
    /// Gives the chunk up for another worker to claim at once.
    public func releaseChunk(_ lease: ChunkLease) async throws {
        try await releaseChunk(lease, hold: .zero)
    }

    /// No series: a queue without them (a test's) has nothing to run.
    public func runDueSeries(limit: Int, actor: String, now: Date) async throws -> [SeriesRun] { [] }

    /// Due by the server's clock.
    public func startDueCampaigns(limit: Int, actor: String) async throws -> [Campaign] {
        try await startDueCampaigns(limit: limit, actor: actor, now: Date())
    }

    public func claimChunk(owner: String, leaseDuration: Duration) async throws -> ChunkLease? {
        try await claimChunk(owner: owner, leaseDuration: leaseDuration, now: Date(), excludingApps: [])
    }
}

/// How campaign work is split: chunks of equal, contiguous bucket ranges.
public enum CampaignChunking {
    /// Enough for many workers on several instances; few enough to claim cheaply. One chunk per
    /// part, so a chunk's devices are one part's (and one shard's on Citus).
    public static let chunkCount = DeviceBucket.partCount

    /// The buckets chunk `chunk` (0 ..< `chunkCount`) covers.
    public static func buckets(ofChunk chunk: Int) -> ClosedRange<Int> {
        let width = DeviceBucket.count / chunkCount
        return (chunk * width)...(chunk * width + width - 1)
    }
}

/// A worker's claim on a chunk. The token is what every write checks.
public struct ChunkLease: Sendable, Hashable {
    public var campaignID: Int64
    public var appID: Int64
    public var chunk: Int
    public var buckets: ClosedRange<Int>
    /// The last device ID whose outcome is stored.
    public var cursor: Int64
    /// Set when the previous holder crashed mid-batch: devices in `(cursor, inFlightTo]` may
    /// have been sent already (they get the same apns-id again).
    public var inFlightTo: Int64?
    /// The campaign's frozen audience bound.
    public var audienceBound: Int64
    public var owner: String
    public var token: Int64
    public var expiresAt: Date
    /// For a zone's chunk: the devices' registered zone ("" for none) and the zone their clock
    /// is read in.
    public var deviceZone: String?
    public var timeZone: String?
    /// Set when the chunk's devices are recorded skipped with this reason, unsent.
    public var skipReason: String?
    /// For a Live Activity start campaign: the attributes type whose start tokens it sends to.
    /// Token errors then drop the start token instead of invalidating the device, and each
    /// accepted start is recorded under the campaign's activity.
    public var startTokenType: String?
    /// A best-time chunk: its devices are those sent at this hour after the window's start.
    public var sendSlot: BestTimeSlot?
    /// The device attributes the campaign's templates read (`attributes.NAME`): the only ones
    /// its device reads fetch. nil reads them all.
    public var attributeNames: [String]?

    public init(
        campaignID: Int64, appID: Int64, chunk: Int, buckets: ClosedRange<Int>, cursor: Int64, inFlightTo: Int64?,
        audienceBound: Int64, owner: String, token: Int64, expiresAt: Date, deviceZone: String? = nil,
        timeZone: String? = nil, skipReason: String? = nil
    ) {
        self.campaignID = campaignID
        self.appID = appID
        self.chunk = chunk
        self.buckets = buckets
        self.cursor = cursor
        self.inFlightTo = inFlightTo
        self.audienceBound = audienceBound
        self.owner = owner
        self.token = token
        self.expiresAt = expiresAt
        self.deviceZone = deviceZone
        self.timeZone = timeZone
        self.skipReason = skipReason
    }
}

/// Which devices a best-time chunk holds: those whose hour is `offset` after the window's start
/// (the fixed-time group's is 0; devices without an hour of their own have `defaultOffset`).
public struct BestTimeSlot: Sendable, Hashable {
    public var offset: Int
    public var defaultOffset: Int
    public var holdoutBasisPoints: Int

    public init(offset: Int, defaultOffset: Int, holdoutBasisPoints: Int) {
        self.offset = offset
        self.defaultOffset = defaultOffset
        self.holdoutBasisPoints = holdoutBasisPoints
    }
}

/// What recording a batch wrote.
public struct BatchReceipt: Sendable, Hashable {
    /// Outcome rows inserted; outcomes already recorded for their device are not counted.
    public var recorded: Int
    /// Devices invalidated.
    public var invalidated: Int

    public init(recorded: Int, invalidated: Int) {
        self.recorded = recorded
        self.invalidated = invalidated
    }
}

/// Why campaign work stopped.
public enum CampaignWorkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another worker claimed the chunk since (this lease expired): stop, write nothing more.
    case leaseLost

    public var description: String {
        switch self {
        case .leaseLost: "the chunk's lease was lost to another worker"
        }
    }
}
