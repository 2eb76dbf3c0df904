import Logging
import PostgresNIO

/// Applies `migrations/` in order, each in one transaction, recording name and checksum.
/// A session advisory lock makes concurrent runners take turns: the second one finds the
/// work done.
public struct MigrationRunner: Sendable {
    /// Arbitrary, fixed: the key of the advisory lock all Herald instances share.
    static let lockKey: Int64 = 0x4845_5241_4C44  // "HERALD"

    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations
        self.logger = logger.forDatabase
    }

    /// Applies what is pending and returns the names applied now.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await Self.holdingTheLock(client: client, logger: logger) { connection in try await apply(on: connection) }
    }

    /// Runs `body` on one connection holding the lock every schema change takes (migrations,
    /// and a conversion to a Citus cluster), released whatever happens.
    static func holdingTheLock<Result: Sendable>(
        client: PostgresClient, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }

    /// Names of files not applied yet; throws if an applied file was edited.
    public func pending() async throws -> [String] {
        try await client.withConnection { connection in
            let applied = try await appliedChecksums(on: connection, createTable: false)
            return try check(applied)
        }
    }

    private func apply(on connection: PostgresConnection) async throws -> [String] {
        let applied = try await appliedChecksums(on: connection, createTable: true)
        let pending = try check(applied)
        for migration in migrations where pending.contains(migration.name) {
            try await connection.query("BEGIN", logger: logger)
            do {
                // A migration may rewrite a large table: the pool's statement timeout is for
                // requests, not for this.
                try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
                for statement in SQLScript.statements(in: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    """
                    INSERT INTO herald_schema_migrations (name, checksum) \
                    VALUES (\(migration.name), \(migration.checksum))
                    """, logger: logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                let reason = (error as? PSQLError)?.serverInfo?[.message] ?? "\(error)"
                throw MigrationError.failed(migration.name, reason)
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
        }
        return pending
    }

    private func check(_ applied: [String: String]) throws -> [String] {
        for migration in migrations {
            if let checksum = applied[migration.name], checksum != migration.checksum {
                throw MigrationError.edited(migration.name)
            }
        }
        return migrations.map(\.name).filter { applied[$0] == nil }
    }

    private func appliedChecksums(on connection: PostgresConnection, createTable: Bool) async throws -> [String: String] {
        if createTable {
            // The runner's own ledger; every other table comes from migrations/.
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS herald_schema_migrations (
                    name text PRIMARY KEY,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
        } else {
            let exists =
                try await connection.query(
                    "SELECT to_regclass('herald_schema_migrations') IS NOT NULL", logger: logger
                ).collect().first?.decode(Bool.self) ?? false
            if !exists { return [:] }
        }
        var result = [String: String]()
        for try await (name, checksum) in try await connection.query(
            "SELECT name, checksum FROM herald_schema_migrations", logger: logger
        ).decode((String, String).self) {
            result[name] = checksum
        }
        return result
    }
}
