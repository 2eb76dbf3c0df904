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
}

/// Deletes dead tokens in bounded batches and records who did it.
public protocol DevicePruner: Sendable {
    func prune(_ request: PruneRequest, actor: String) async throws -> PruneResult
}
