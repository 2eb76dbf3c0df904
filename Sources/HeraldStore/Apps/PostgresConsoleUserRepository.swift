import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Console users in PostgreSQL. Failed sign-ins are counted on the user's row, so throttling
/// holds across instances; the lock doubles from one minute with each failure past the
/// threshold, up to an hour.
public struct PostgresConsoleUserRepository: ConsoleUserRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    static let columns = "u.id, u.email, u.role, u.created_at, u.last_login_at, u.disabled_at"

    public func add(email: String, role: ConsoleRole, passwordHash: String, actor: String) async throws -> ConsoleUser {
        try await DatabaseMetrics.measure("users.add") {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let rows = try await connection.query(
                        """
                        WITH u AS (
                            INSERT INTO users (email, role, password_hash) VALUES (lower(\(email)), \(role.rawValue), \(passwordHash))
                            RETURNING *
                        )
                        SELECT \(unescaped: Self.columns) FROM u
                        """, logger: logger)
                    guard let row = try await rows.collect().first else { throw StoreError.missingRow }
                    let user = try Self.decode(row)
                    try await AuditLog.record(
                        on: connection, actor: actor, action: "user.add", appID: nil,
                        details: ["userID": .int(Int(user.id)), "email": .string(user.email), "role": .string(role.rawValue)],
                        logger: logger)
                    return user
                }
            } catch  where PostgresErrors.isUniqueViolation(error) {
                throw ValidationError(field: "email", reason: "a user with this email exists")
            }
        }
    }

    public func list(after cursor: Int64?, limit: Int) async throws -> [ConsoleUser] {
        try await DatabaseMetrics.measure("users.list") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM users u
                WHERE u.id > \(cursor ?? 0) ORDER BY u.id LIMIT \(limit)
                """, logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func find(email: String) async throws -> ConsoleUser? {
        try await credentials(email: email)?.user
    }

    public func credentials(email: String) async throws -> ConsoleCredentials? {
        try await DatabaseMetrics.measure("users.credentials") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns), u.password_hash, u.locked_until FROM users u
                WHERE lower(u.email) = lower(\(email))
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let columns = row.makeRandomAccess()
            return ConsoleCredentials(
                user: try Self.decode(row), passwordHash: try columns[6].decode(String.self),
                lockedUntil: try columns[7].decode(Date?.self))
        }
    }

    public func recordLogin(userID: Int64, now: Date) async throws {
        try await DatabaseMetrics.measure("users.login") {
            _ = try await client.query(
                "UPDATE users SET failed_logins = 0, locked_until = NULL, last_login_at = \(now) WHERE id = \(userID)",
                logger: logger)
        }
    }

    public func setDisabled(userID: Int64, disabled: Bool, actor: String) async throws -> Bool {
        try await change(userID: userID, action: disabled ? "user.disable" : "user.enable", actor: actor, details: [:]) {
            connection in
            try await connection.query(
                """
                UPDATE users SET disabled_at = CASE WHEN \(disabled) THEN coalesce(disabled_at, \(Date())) END
                WHERE id = \(userID) RETURNING id
                """, logger: logger)
        } after: { connection in
            if disabled { _ = try await connection.query("DELETE FROM sessions WHERE user_id = \(userID)", logger: logger) }
        }
    }

    public func setPassword(userID: Int64, passwordHash: String, actor: String) async throws -> Bool {
        try await change(userID: userID, action: "user.resetPassword", actor: actor, details: [:]) { connection in
            try await connection.query(
                """
                UPDATE users SET password_hash = \(passwordHash), password_changed_at = now(), failed_logins = 0,
                    locked_until = NULL
                WHERE id = \(userID) RETURNING id
                """, logger: logger)
        } after: { connection in
            _ = try await connection.query("DELETE FROM sessions WHERE user_id = \(userID)", logger: logger)
        }
    }

    public func setRole(userID: Int64, role: ConsoleRole, actor: String) async throws -> Bool {
        try await change(userID: userID, action: "user.setRole", actor: actor, details: ["role": .string(role.rawValue)]) {
            connection in
            try await connection.query("UPDATE users SET role = \(role.rawValue) WHERE id = \(userID) RETURNING id", logger: logger)
        } after: { _ in
        }
    }

    /// One audited change of a user's row, in a transaction with what follows it.
    private func change(
        userID: Int64, action: String, actor: String, details: [String: PayloadValue],
        _ update: (PostgresConnection) async throws -> PostgresRowSequence,
        after: (PostgresConnection) async throws -> Void
    ) async throws -> Bool {
        try await DatabaseMetrics.measure("users.change") {
            try await client.withTransaction(logger: logger) { connection in
                guard try await update(connection).collect().first != nil else { return false }
                try await after(connection)
                var details = details
                details["userID"] = .int(Int(userID))
                try await AuditLog.record(on: connection, actor: actor, action: action, appID: nil, details: details, logger: logger)
                return true
            }
        }
    }

    static func decode(_ row: PostgresRow) throws -> ConsoleUser {
        let columns = row.makeRandomAccess()
        let role = try columns[2].decode(String.self)
        // The table's CHECK allows only these; anything else fails loudly rather than as a viewer.
        guard let parsed = ConsoleRole(rawValue: role) else { throw StoreError.unknownValue(column: "users.role", value: role) }
        return ConsoleUser(
            id: try columns[0].decode(Int64.self), email: try columns[1].decode(String.self),
            role: parsed,
            createdAt: try columns[3].decode(Date.self), lastLoginAt: try columns[4].decode(Date?.self),
            disabledAt: try columns[5].decode(Date?.self))
    }
}
