import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Every secret stored sealed (app credentials, webhook signing secrets), checked against a
/// vault: `herald serve` refuses to start, and nothing new is sealed, when the configured
/// secrets do not open what is stored (docs/admin.md "Changing HERALD_SECRET_KEY"). A wrong key
/// would otherwise report ready, fail webhooks for good and seal new secrets that the right
/// key cannot open.
enum SealedSecrets {
    /// The sealed secrets `vault` cannot open, and how many there are in all.
    static func unopenable(
        with vault: SigningKeyVault, on connection: PostgresConnection, logger: Logger
    ) async throws
        -> (unopenable: [SealedSecretRow], total: Int)
    {
        var failed = [SealedSecretRow]()
        var total = 0
        let credentials = try await connection.query(
            """
            SELECT c.id, c.app_id, a.bundle_id, c.secret_sealed, c.seal_format
            FROM app_credentials c JOIN apps a ON a.id = c.app_id
            WHERE c.secret_sealed IS NOT NULL ORDER BY c.id
            """, logger: logger)
        for try await (id, appID, bundleID, sealed, format) in credentials.decode((Int64, Int64, String, ByteBuffer, Int16).self) {
            total += 1
            if (try? vault.open(Array(buffer: sealed), format: format, appID: appID, credentialID: id)) == nil {
                failed.append(SealedSecretRow(table: "app_credentials", id: id, bundleID: bundleID))
            }
        }
        let endpoints = try await connection.query(
            """
            SELECT e.id, a.bundle_id, e.secret_sealed FROM webhook_endpoints e LEFT JOIN apps a ON a.id = e.app_id ORDER BY e.id
            """, logger: logger)
        for try await (id, bundleID, sealed) in endpoints.decode((Int64, String?, ByteBuffer).self) {
            total += 1
            if (try? vault.open(Array(buffer: sealed), webhookEndpointID: id)) == nil {
                failed.append(SealedSecretRow(table: "webhook_endpoints", id: id, bundleID: bundleID))
            }
        }
        return (failed, total)
    }

    /// Throws ``SecretKeyMismatch`` naming the rows `vault` cannot open.
    static func requireOpenable(with vault: SigningKeyVault, on connection: PostgresConnection, logger: Logger) async throws {
        let (unopenable, total) = try await unopenable(with: vault, on: connection, logger: logger)
        if !unopenable.isEmpty { throw SecretKeyMismatch(unopenable: unopenable, total: total) }
    }
}

/// A stored secret, by table and row, for messages: never its content.
public struct SealedSecretRow: Sendable, Equatable, CustomStringConvertible {
    public var table: String
    public var id: Int64
    /// The app it belongs to; nil for a webhook endpoint of every app.
    public var bundleID: String?

    public var description: String {
        switch table {
        case "app_credentials": "credential \(id) of \(bundleID ?? "?")"
        default: "webhook endpoint \(id) (\(bundleID ?? "every app"))"
        }
    }
}

/// The configured secrets do not open what the database holds: the instance was given another
/// key than the one that sealed them, or a previous key is missing.
public struct SecretKeyMismatch: Error, CustomStringConvertible {
    public var unopenable: [SealedSecretRow]
    public var total: Int

    public var description: String {
        let named = unopenable.prefix(5).map(\.description).joined(separator: ", ")
        let more = unopenable.count > 5 ? " and \(unopenable.count - 5) more" : ""
        return "HERALD_SECRET_KEY (with HERALD_PREVIOUS_SECRET_KEYS) does not open \(unopenable.count) of the \(total) "
            + "stored secrets (\(named)\(more)): it is not the key that sealed them; set that key, or add it to "
            + "HERALD_PREVIOUS_SECRET_KEYS"
    }
}

extension PostgresAppRepository {
    /// Throws ``SecretKeyMismatch`` when this instance's secrets do not open every stored one;
    /// `herald serve` calls it before it listens. Without `HERALD_SECRET_KEY` there is nothing to check.
    public func verifySecretKey() async throws {
        guard let vault else { return }
        try await DatabaseMetrics.measure("apps.verifySecretKey") {
            try await client.withConnection { connection in
                try await SealedSecrets.requireOpenable(with: vault, on: connection, logger: logger)
            }
        }
    }
}
