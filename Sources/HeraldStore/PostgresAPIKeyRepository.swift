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

    public func create(role: APIKeyRole, appID: Int64?, name: String?, actor: String) async throws
        -> (APIKey, APIKeySecret)
    {
        try await DatabaseMetrics.measure("keys.create") {
            guard (role == .app) == (appID != nil) else {
                throw ValidationError(field: "app", reason: "an app key needs an app; admin and marketing keys take none")
            }
            let secret = APIKeySecret()
            let key = try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    WITH created AS (
                        INSERT INTO api_keys (prefix, key_hash, role, app_id, name)
                        VALUES (\(secret.prefix), \(Self.hash(secret.value)), \(role.rawValue), \(appID), \(name))
                        RETURNING *
                    )
                    SELECT \(unescaped: Self.columns) FROM created k LEFT JOIN apps a ON a.id = k.app_id
                    """, logger: logger)
                guard let row = try await rows.collect().first else { throw StoreError.missingRow }
                let key = try Self.decode(row)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "key.create", appID: appID,
                    details: ["keyID": .int(Int(key.id)), "role": .string(role.rawValue)], logger: logger)
                return key
            }
            return (key, secret)
        }
    }

    public func list() async throws -> [APIKey] {
        try await DatabaseMetrics.measure("keys.list") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id ORDER BY k.id",
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
                return true
            }
        }
    }

    public func authenticate(_ presented: String) async throws -> Principal? {
        try await DatabaseMetrics.measure("keys.authenticate") {
            guard presented.hasPrefix("hk_"), presented.utf8.count == 67 else { return nil }
            // One round trip: find the key and, at most once a minute, note that it was used.
            let rows = try await client.query(
                """
                WITH k AS (
                    SELECT id, prefix, role, app_id FROM api_keys
                    WHERE key_hash = \(Self.hash(presented)) AND revoked_at IS NULL
                ), touched AS (
                    UPDATE api_keys SET last_used_at = now()
                    WHERE id = (SELECT id FROM k)
                      AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
                )
                SELECT k.id, k.prefix, k.role, a.bundle_id FROM k LEFT JOIN apps a ON a.id = k.app_id
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let (id, prefix, role, bundleID) = try row.decode((Int64, String, String, String?).self)
            guard let role = APIKeyRole(rawValue: role) else { return nil }
            return Principal(keyID: id, keyPrefix: prefix, role: role, appBundleID: bundleID)
        }
    }

    static func hash(_ key: String) -> ByteBuffer {
        ByteBuffer(bytes: Array(SHA256.hash(data: Data(key.utf8))))
    }

    static let columns = "k.id, k.prefix, k.role, a.bundle_id, k.name, k.created_at, k.last_used_at, k.revoked_at"

    static func decode(_ row: PostgresRow) throws -> APIKey {
        let (id, prefix, role, bundleID, name, createdAt, lastUsedAt, revokedAt) = try row.decode(
            (Int64, String, String, String?, String?, Date, Date?, Date?).self)
        return APIKey(
            id: id, prefix: prefix, role: try StoreError.decode(role, as: APIKeyRole.self, column: "api_keys.role"), bundleID: bundleID, name: name,
            createdAt: createdAt, lastUsedAt: lastUsedAt, revokedAt: revokedAt)
    }
}
