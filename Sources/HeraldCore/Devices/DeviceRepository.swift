import APNSCore

/// The token registry.
public protocol DeviceRepository: Sendable {
    /// Registers or updates a token: sets `registered_at` to now and clears an earlier
    /// invalidation. `created` tells whether the token was new.
    func register(
        appID: Int64, token: DeviceToken, registration: DeviceRegistration
    ) async throws
        -> (device: Device, created: Bool)
    func find(appID: Int64, token: DeviceToken) async throws -> Device?
    /// The registered devices among `tokens`, in one query; unregistered tokens are absent.
    func find(appID: Int64, tokens: [DeviceToken]) async throws -> [DeviceToken: Device]
    /// Removes a token; `false` when it was not registered.
    func delete(appID: Int64, token: DeviceToken) async throws -> Bool
    func list(appID: Int64, query: DeviceListQuery) async throws -> DevicePage
    /// The valid devices of each of these user IDs, at most `limitPerUser` each (the oldest
    /// first), in one query; a user with none is absent.
    func valid(appID: Int64, userIDs: [String], limitPerUser: Int) async throws -> [String: [Device]]
    /// Devices whose token ends with `suffix` (4 bytes or more), newest first, at most `limit`.
    func find(appID: Int64, tokenSuffix suffix: [UInt8], limit: Int) async throws -> [Device]
    /// Registers many tokens in one statement. Tokens must be distinct within the batch.
    func importBatch(appID: Int64, items: [DeviceImportItem]) async throws -> DeviceImportCounts
    /// How many lines an import should write per `importBatch`: the size past which a larger
    /// batch no longer pays on this store.
    func importBatchSize() async -> Int
}

extension DeviceRepository {
    public func importBatchSize() async -> Int { DeviceImportBatching.lines }
}

/// The batch an import writes at once (BENCHMARKS.md "Import batches on a cluster").
public enum DeviceImportBatching {
    /// On one PostgreSQL: 4,000 and 16,000 lines ran at the same rate, and each line a batch
    /// holds costs memory while it is parsed and written.
    public static let lines = 4000
    /// On a Citus cluster, where a batch's transaction writes to every shard and commits in two
    /// phases: 16,000 lines ran 1.8 times as fast as 4,000; 32,000 and 64,000 added little
    /// and cost 25-70 MiB more.
    public static let distributedLines = 16_000
}

/// Deletes dead tokens in bounded batches and records who did it.
public protocol DevicePruner: Sendable {
    func prune(_ request: PruneRequest, actor: String) async throws -> PruneResult
}
