import APNSCore
import Crypto
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// API keys in PostgreSQL: only the SHA-256 of a key is stored (keys are 256 random bits,
/// so a fast hash is enough), and a key is found by its hash.
public struct PostgresAPIKeyRepository: APIKeyRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func create(_ new: NewAPIKey, actor: String) async throws -> (APIKey, APIKeySecret) {
        try await DatabaseMetrics.measure("keys.create") {
            let secret = APIKeySecret()
            let key = try await client.withDomainTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    WITH created AS (
                        INSERT INTO api_keys (prefix, key_hash, role, app_id, name, expires_at, app_scope)
                        VALUES (\(secret.prefix), \(Self.hash(secret.value)), \(new.role.rawValue), \(new.appID), \(new.name),
                                \(new.expiresAt), \(new.appScope))
                        RETURNING *
                    )
                    SELECT \(unescaped: Self.columns) FROM created k LEFT JOIN apps a ON a.id = k.app_id
                    """, logger: logger)
                guard let row = try await rows.collect().first else { throw StoreError.missingRow }
                let key = try Self.decode(row)
                var details: [String: PayloadValue] = [
                    "keyID": .int(Int(key.id)), "role": .string(new.role.rawValue), "prefix": .string(key.prefix),
                ]
                if let scope = key.appScope { details["apps"] = .array(scope.map { .string($0) }) }
                if let expiresAt = new.expiresAt { details["expiresAt"] = .string(expiresAt.formatted(.iso8601)) }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "key.create", appID: new.appID, details: details, logger: logger)
                return key
            }
            return (key, secret)
        }
    }

    public func list() async throws -> [APIKey] {
        try await DatabaseMetrics.measure("keys.list") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id ORDER BY k.id DESC",
                logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func revoke(id: Int64, actor: String) async throws -> Bool {
        try await DatabaseMetrics.measure("keys.revoke") {
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    "UPDATE api_keys SET revoked_at = now() WHERE id = \(id) AND revoked_at IS NULL RETURNING app_id",
                    logger: logger)
                guard let row = try await rows.collect().first else { return false }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "key.revoke", appID: try row.decode(Int64?.self),
                    details: ["keyID": .int(Int(id))], logger: logger)
                // Every instance forgets the key when this commits (their caches listen).
                _ = try await connection.query(
                    "SELECT pg_notify(\(ChangeFeed.keyChannel), \(String(id)))", logger: logger
                ).collect()
                return true
            }
        }
    }

    public func authenticate(_ presented: String) async throws -> Principal? {
        try await DatabaseMetrics.measure("keys.authenticate") {
            guard presented.hasPrefix("hk_"), presented.utf8.count == 67 else { return nil }
            // Finds the key; at most once a minute a second statement notes that it was used.
            // Not one statement with the UPDATE in a CTE: on a Citus cluster that plan reaches
            // every worker, and the API would stop while one is down (docs/scaling.md).
            let rows = try await client.query(
                """
                SELECT k.id, k.prefix, k.role, a.bundle_id, \(unescaped: Self.scope), k.expires_at,
                       k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute'
                FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id
                WHERE k.key_hash = \(Self.hash(presented)) AND k.revoked_at IS NULL
                  AND (k.expires_at IS NULL OR k.expires_at > now())
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let (id, prefix, role, bundleID, scope, expiresAt, stale) = try row.decode(
                (Int64, String, String, String?, [String]?, Date?, Bool).self)
            if stale {
                _ = try await client.query(
                    """
                    UPDATE api_keys SET last_used_at = now()
                    WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
                    """, logger: logger
                ).collect()
            }
            return Principal(
                keyID: id, keyPrefix: prefix, role: try StoreError.decode(role, as: APIKeyRole.self, column: "api_keys.role"),
                appBundleID: bundleID, appScope: scope.map { Set($0) }, expiresAt: expiresAt)
        }
    }

    static func hash(_ key: String) -> ByteBuffer {
        ByteBuffer(bytes: Array(SHA256.hash(data: Data(key.utf8))))
    }

    /// A scoped key's apps by bundle ID (an app that no longer exists drops out); NULL: every app.
    static let scope =
        "CASE WHEN k.app_scope IS NULL THEN NULL ELSE (SELECT coalesce(array_agg(s.bundle_id ORDER BY s.bundle_id), '{}') "
        + "FROM apps s WHERE s.id = ANY (k.app_scope)) END"

    static let columns =
        "k.id, k.prefix, k.role, a.bundle_id, k.name, k.created_at, k.last_used_at, k.revoked_at, k.expires_at, " + scope

    static func decode(_ row: PostgresRow) throws -> APIKey {
        let (id, prefix, role, bundleID, name, createdAt, lastUsedAt, revokedAt, expiresAt, scope) = try row.decode(
            (Int64, String, String, String?, String?, Date, Date?, Date?, Date?, [String]?).self)
        return APIKey(
            id: id, prefix: prefix, role: try StoreError.decode(role, as: APIKeyRole.self, column: "api_keys.role"),
            bundleID: bundleID, name: name, createdAt: createdAt, lastUsedAt: lastUsedAt, revokedAt: revokedAt,
            expiresAt: expiresAt, appScope: scope)
    }
}
