import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresAppRepository {
    /// Re-seals every stored credential and webhook signing secret with the vault's current secret (and binds the old
    /// unbound ones to their row), in one transaction: either every row moves to the new
    /// secret or none does. Audited as `secrets.rotate` with the count. Returns the count.
    public func resealAll(actor: String) async throws -> Int {
        try await DatabaseMetrics.measure("apps.resealAll") {
            let vault = try requireVault()
            return try await client.withDomainTransaction(logger: logger) { connection in
                // Every row is checked before any moves, and the message names each that does not open.
                try await SealedSecrets.requireOpenable(with: vault, on: connection, logger: logger)
                let rows = try await connection.query(
                    """
                    SELECT id, app_id, secret_sealed, seal_format FROM app_credentials
                    WHERE secret_sealed IS NOT NULL ORDER BY id FOR UPDATE
                    """, logger: logger
                ).collect()
                var apps = Set<Int64>()
                for row in rows {
                    let (id, appID, sealed, format) = try row.decode((Int64, Int64, ByteBuffer, Int16).self)
                    apps.insert(appID)
                    let secret = try vault.open(Array(buffer: sealed), format: format, appID: appID, credentialID: id)
                    let resealed = ByteBuffer(bytes: try vault.seal(secret, appID: appID, credentialID: id))
                    _ = try await connection.query(
                        "UPDATE app_credentials SET secret_sealed = \(resealed), seal_format = 2 WHERE id = \(id)",
                        logger: logger
                    ).collect()
                }
                for appID in apps.sorted() {
                    try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                }
                let endpoints = try await connection.query(
                    "SELECT id, secret_sealed FROM webhook_endpoints ORDER BY id FOR UPDATE", logger: logger
                ).collect()
                for row in endpoints {
                    let (id, sealed) = try row.decode((Int64, ByteBuffer).self)
                    let secret = try vault.open(Array(buffer: sealed), webhookEndpointID: id)
                    let resealed = ByteBuffer(bytes: try vault.seal(secret, webhookEndpointID: id))
                    _ = try await connection.query(
                        "UPDATE webhook_endpoints SET secret_sealed = \(resealed) WHERE id = \(id)", logger: logger
                    ).collect()
                }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "secrets.rotate", appID: nil,
                    details: ["credentials": .int(rows.count), "webhookEndpoints": .int(endpoints.count)], logger: logger)
                return rows.count + endpoints.count
            }
        }
    }
}
