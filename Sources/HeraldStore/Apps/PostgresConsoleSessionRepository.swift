import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Console sessions in PostgreSQL, found by the SHA-256 of their cookie. A session ends at its
/// idle expiry, at its absolute limit after sign-in, when its user is disabled or their password
/// is reset, or at sign-out.
public struct PostgresConsoleSessionRepository: ConsoleSessionRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func create(tokenHash: [UInt8], userID: Int64, csrfToken: String, expiresAt: Date) async throws {
        try await DatabaseMetrics.measure("sessions.create") {
            _ = try await client.query(
                """
                INSERT INTO sessions (token_hash, user_id, csrf_token, expires_at)
                VALUES (\(ByteBuffer(bytes: tokenHash)), \(userID), \(csrfToken), \(expiresAt))
                """, logger: logger)
        }
    }

    public func find(
        tokenHash: [UInt8], now: Date, idle: TimeInterval, absoluteLimit: TimeInterval
    ) async throws
        -> ConsoleSession?
    {
        try await DatabaseMetrics.measure("sessions.find") {
            // Found by one statement; its expiry slid by a second, at most once a minute. Two
            // statements: a Citus cluster refuses an UPDATE that computes from a column with a
            // stable function (`created_at + interval`), so the new expiry is computed here.
            let rows = try await client.query(
                """
                SELECT \(unescaped: PostgresConsoleUserRepository.columns), s.csrf_token, s.created_at, s.last_seen_at,
                    s.expires_at
                FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.token_hash = \(ByteBuffer(bytes: tokenHash)) AND s.expires_at > \(now)
                  AND u.disabled_at IS NULL
                  AND s.created_at > \(now.addingTimeInterval(-absoluteLimit))
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let columns = row.makeRandomAccess()
            let session = ConsoleSession(
                user: try PostgresConsoleUserRepository.decode(row), csrfToken: try columns[6].decode(String.self),
                createdAt: try columns[7].decode(Date.self), lastSeenAt: try columns[8].decode(Date.self),
                expiresAt: try columns[9].decode(Date.self))
            if session.lastSeenAt < now.addingTimeInterval(-60) {
                let expiry = min(now.addingTimeInterval(idle), session.createdAt.addingTimeInterval(absoluteLimit))
                _ = try await client.query(
                    """
                    UPDATE sessions SET last_seen_at = \(now), expires_at = \(expiry)
                    WHERE token_hash = \(ByteBuffer(bytes: tokenHash))
                    """, logger: logger)
            }
            return session
        }
    }

    public func delete(tokenHash: [UInt8]) async throws {
        try await DatabaseMetrics.measure("sessions.delete") {
            _ = try await client.query("DELETE FROM sessions WHERE token_hash = \(ByteBuffer(bytes: tokenHash))", logger: logger)
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        try await DatabaseMetrics.measure("sessions.deleteExpired") {
            let rows = try await client.query(
                "WITH d AS (DELETE FROM sessions WHERE expires_at <= \(now) RETURNING 1) SELECT count(*) FROM d",
                logger: logger)
            return try await rows.collect().first?.decode(Int.self) ?? 0
        }
    }
}
