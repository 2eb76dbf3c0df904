import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The provider token every instance presents for one team and signing key (migration 0022,
/// docs/apns.md "Provider tokens"). APNs answers 429 TooManyProviderTokenUpdates when a team's
/// token changes too often; with one token per instance it would change with every instance
/// that starts or renews. The row is taken `FOR UPDATE`: the first instance to find the stored
/// token due signs the next one, the others wait on the lock and then take it.
public struct PostgresProviderTokens: Sendable {
    let client: PostgresClient
    let vault: SigningKeyVault
    let logger: Logger

    public init(client: PostgresClient, vault: SigningKeyVault, logger: Logger) {
        self.client = client
        self.vault = vault
        self.logger = logger.forDatabase
    }

    /// The team's shared token: the stored one while it is younger than `renewalAge`, otherwise
    /// one `sign` makes now, stored for the others.
    public func current(
        teamID: String, keyID: String, renewalAge: TimeInterval, now: Date, sign: @Sendable (Date) throws -> String
    ) async throws -> (token: String, issuedAt: Date) {
        try await DatabaseMetrics.measure("providerTokens.current") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    "INSERT INTO provider_tokens (team_id, key_id) VALUES (\(teamID), \(keyID)) ON CONFLICT DO NOTHING",
                    logger: logger)
                let rows = try await connection.query(
                    "SELECT token, issued_at FROM provider_tokens WHERE team_id = \(teamID) AND key_id = \(keyID) FOR UPDATE",
                    logger: logger)
                if let row = try await rows.collect().first {
                    let (sealed, issuedAt) = try row.decode((ByteBuffer?, Date?).self)
                    if let sealed, let issuedAt, now.timeIntervalSince(issuedAt) < renewalAge, issuedAt <= now.addingTimeInterval(60),
                        let token = vault.open(Array(buffer: sealed), providerTokenOf: teamID, keyID: keyID)
                    {
                        return (token, issuedAt)
                    }
                }
                let token = try sign(now)
                let sealed = try vault.seal(token, providerTokenOf: teamID, keyID: keyID)
                try await connection.query(
                    """
                    UPDATE provider_tokens SET token = \(ByteBuffer(bytes: sealed)), issued_at = \(now)
                    WHERE team_id = \(teamID) AND key_id = \(keyID)
                    """, logger: logger)
                return (token, now)
            }
        }
    }
}
