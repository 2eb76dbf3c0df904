import APNSCore

/// API keys: only hashes are stored.
public protocol APIKeyRepository: Sendable {
    /// Creates a key and returns its secret, which is never stored or shown again.
    func create(_ key: NewAPIKey, actor: String) async throws -> (APIKey, APIKeySecret)
    /// Every key, newest first.
    func list() async throws -> [APIKey]
    /// Revokes a key by ID; `false` if there is no such key or it was already revoked.
    func revoke(id: Int64, actor: String) async throws -> Bool
    /// The caller behind a presented key, or `nil` for an unknown, revoked or expired key.
    func authenticate(_ presented: String) async throws -> Principal?
}

extension APIKeyRepository {
    /// A key without an expiry or a set of apps.
    public func create(role: APIKeyRole, appID: Int64?, name: String?, actor: String) async throws -> (APIKey, APIKeySecret) {
        try await create(try NewAPIKey(role: role, appID: appID, name: name), actor: actor)
    }
}
