import Foundation
import Logging
import PostgresNIO

/// Turns a migrated database on a Citus coordinator into Herald's distributed schema
/// (``CitusLayout``), in place: `create_distributed_table` moves each table's existing rows to
/// the workers, so a registry is moved without a dump and reload (docs/scaling.md, "Moving to a
/// cluster").
///
/// Every step can be run again: a table already placed is left as it is, and the foreign keys
/// (which must be dropped while tables change kind) are kept in `herald_citus_foreign_keys`
/// until they are back, so a conversion interrupted half-way is finished by the next run. It
/// holds the migration lock, so instances starting meanwhile wait for it.
public struct CitusConversion: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    /// What a conversion did; empty when the database was already distributed.
    public struct Report: Sendable, Equatable {
        public var distributed: [String] = []
        public var reference: [String] = []
        public var coordinator: [String] = []
        public var foreignKeysRestored = 0
        /// Names of the foreign keys the cluster cannot hold (``CitusLayout/foreignKeysLeftOut``).
        public var foreignKeysLeftOut: [String] = []

        public var isEmpty: Bool {
            distributed.isEmpty && reference.isEmpty && coordinator.isEmpty && foreignKeysRestored == 0
                && foreignKeysLeftOut.isEmpty
        }
    }

    /// The version of the citus extension in this database; nil on a plain PostgreSQL.
    public func citusVersion() async throws -> String? {
        try await client.query("SELECT extversion FROM pg_extension WHERE extname = 'citus'", logger: logger)
            .collect().first?.decode(String.self)
    }

    /// Whether every table of ``CitusLayout`` is placed and no foreign key waits to be restored.
    public func isConverted() async throws -> Bool {
        guard try await citusVersion() != nil else { return false }
        return try await client.withConnection { connection in
            let unplaced = try await Self.unplaced(on: connection, logger: logger)
            let waiting = try await Self.waitingKeys(on: connection, logger: logger)
            let sequencesNoted = try await Self.sequencesNoted(on: connection, logger: logger)
            return unplaced.isEmpty && waiting.isEmpty && !sequencesNoted
        }
    }

    /// Converts the database; throws ``CitusConversionError`` with the reason when it cannot
    /// start (no extension, no workers, a node unreachable, migrations pending) or when the
    /// cluster refuses a step, which names it.
    public func convert(after migrations: MigrationRunner) async throws -> Report {
        guard try await citusVersion() != nil else { throw CitusConversionError.notInstalled }
        let pending = try await migrations.pending()
        guard pending.isEmpty else { throw CitusConversionError.pendingMigrations(pending) }
        return try await MigrationRunner.holdingTheLock(client: client, logger: logger) { connection in
            try await run(on: connection)
        }
    }

    private func run(on connection: PostgresConnection) async throws -> Report {
        var report = Report()
        let unplaced = try await Self.unplaced(on: connection, logger: logger)
        let waiting = try await Self.waitingKeys(on: connection, logger: logger)
        let sequencesNoted = try await Self.sequencesNoted(on: connection, logger: logger)
        if unplaced.isEmpty && waiting.isEmpty && !sequencesNoted { return report }
        try await checkNodes(on: connection)
        try await setAsideForeignKeys(of: unplaced, on: connection)
        try await noteSequences(on: connection)
        // The distributed tables first: a table Citus keeps on the coordinator cannot be
        // partitioned with CHECK constraints, and the ledger would become one if it met a
        // reference table through a foreign key before being distributed.
        // A table of a schema from before its part column (the chunk tables before migration
        // 0040) stays on the coordinator; the conversion after that migration moves it.
        let partless = try await Self.withoutPart(on: connection, logger: logger)
        for table in CitusLayout.byPart where unplaced.contains(table) && !partless.contains(table) {
            guard case .distributed(let colocated) = CitusLayout.placement(of: table) else { continue }
            let colocation = colocated.map { "colocate_with => '\($0)'" } ?? "colocate_with => 'none', shard_count => \(CitusLayout.shardCount)"
            try await step("distribute \(table)", on: connection) {
                "SELECT create_distributed_table('\(table)', '\(CitusLayout.column)', \(colocation))"
            }
            report.distributed.append(table)
        }
        for table in CitusLayout.reference where unplaced.contains(table) {
            try await step("make \(table) a reference table", on: connection) { "SELECT create_reference_table('\(table)')" }
            report.reference.append(table)
        }
        for table in unplaced.sorted() where CitusLayout.placement(of: table) == .coordinator || partless.contains(table) {
            try await step("add \(table) to the cluster's metadata", on: connection) {
                "SELECT citus_add_local_table_to_metadata('\(table)')"
            }
            report.coordinator.append(table)
        }
        for key in try await Self.waitingKeys(on: connection, logger: logger) {
            do {
                try await transaction(on: connection) {
                    "ALTER TABLE \(key.table) ADD CONSTRAINT \(Self.quoted(key.name)) \(key.definition)"
                }
                report.foreignKeysRestored += 1
            } catch let error as PSQLError {
                guard CitusLayout.foreignKeysLeftOut[key.name] != nil else {
                    throw CitusConversionError.refused(
                        step: "restore foreign key \(key.name) on \(key.table)", reason: Self.message(error))
                }
                logger.notice(
                    "foreign key left out on the cluster", metadata: ["table": "\(key.table)", "constraint": "\(key.name)"])
                report.foreignKeysLeftOut.append(key.name)
            }
            try await connection.query(
                "DELETE FROM herald_citus_foreign_keys WHERE table_name = \(key.table) AND name = \(key.name)", logger: logger)
        }
        try await restoreSequences(on: connection)
        // Every key is back or left out for good: the bookkeeping goes.
        try await transaction(on: connection) { "DROP TABLE IF EXISTS herald_citus_foreign_keys" }
        return report
    }

    /// Keeps where each sequence stands (the identity and serial columns' next IDs), once. Citus
    /// rebuilds a table it takes over, and an identity column's sequence then starts again at 1:
    /// new rows would collide with the old ones, or reuse the IDs of rows deleted before, which
    /// the ledger's history still names.
    private func noteSequences(on connection: PostgresConnection) async throws {
        try await transaction(on: connection) {
            "CREATE TABLE IF NOT EXISTS herald_citus_sequences (name text PRIMARY KEY, last_value bigint NOT NULL)"
        }
        try await transaction(on: connection) {
            """
            INSERT INTO herald_citus_sequences (name, last_value)
            SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL
            ON CONFLICT DO NOTHING
            """
        }
    }

    /// Sets each sequence past both where it stood before and the largest ID its column holds.
    private func restoreSequences(on connection: PostgresConnection) async throws {
        let columns = try await connection.query(
            """
            SELECT c.relname, a.attname, pg_get_serial_sequence(quote_ident(c.relname), a.attname)
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND a.attnum > 0 AND NOT a.attisdropped
              AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL
            ORDER BY 1, 2
            """, logger: logger
        ).collect().map { try $0.decode((String, String, String).self) }
        for (table, column, sequence) in columns {
            let bare = sequence.split(separator: ".").last.map(String.init) ?? sequence
            try await step("resume \(sequence)", on: connection) {
                """
                SELECT setval('\(sequence)', greatest(
                    (SELECT max(\(Self.quoted(column))) FROM \(Self.quoted(table))),
                    (SELECT last_value FROM herald_citus_sequences WHERE name = '\(bare.replacingOccurrences(of: "'", with: "''"))'),
                    (SELECT last_value FROM \(sequence)), 1))
                """
            }
        }
        try await transaction(on: connection) { "DROP TABLE IF EXISTS herald_citus_sequences" }
    }

    /// Refuses to start unless the coordinator has workers and every node reaches every other.
    private func checkNodes(on connection: PostgresConnection) async throws {
        let workers =
            try await connection.query(
                "SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0 AND isactive", logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        guard workers > 0 else { throw CitusConversionError.noWorkers }
        var unreachable = [String]()
        let rows = try await connection.query(
            """
            SELECT from_nodename || ':' || from_nodeport, to_nodename || ':' || to_nodeport
            FROM citus_check_cluster_node_health() WHERE result IS NOT TRUE ORDER BY 1, 2
            """, logger: logger)
        for try await (from, to) in rows.decode((String, String).self) { unreachable.append("\(from) → \(to)") }
        guard unreachable.isEmpty else { throw CitusConversionError.unreachable(unreachable) }
    }

    /// Keeps every foreign key from or to the tables about to be placed in
    /// `herald_citus_foreign_keys` and drops it, in one transaction; a run that finds keys kept
    /// already leaves them. Keys between tables placed before stay as they are: moving the chunk
    /// tables of a converted cluster (migration 0040) does not check `devices` against `apps`
    /// again.
    private func setAsideForeignKeys(of tables: Set<String>, on connection: PostgresConnection) async throws {
        try await transaction(on: connection) {
            """
            CREATE TABLE IF NOT EXISTS herald_citus_foreign_keys (
                table_name text NOT NULL, name text NOT NULL, definition text NOT NULL, PRIMARY KEY (table_name, name))
            """
        }
        let keys = try await connection.query(
            """
            SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
            WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND c.conparentid = 0
              AND (c.conrelid::regclass::text = ANY(\(Array(tables))::text[])
                   OR c.confrelid::regclass::text = ANY(\(Array(tables))::text[]))
            ORDER BY 1, 2
            """, logger: logger
        ).collect().map { try $0.decode((String, String, String).self) }
        guard !keys.isEmpty else { return }
        try await connection.query("BEGIN", logger: logger)
        do {
            for (table, name, definition) in keys {
                try await connection.query(
                    """
                    INSERT INTO herald_citus_foreign_keys (table_name, name, definition)
                    VALUES (\(table), \(name), \(definition)) ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: "ALTER TABLE \(table) DROP CONSTRAINT \(Self.quoted(name))"), logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw CitusConversionError.refused(step: "set the foreign keys aside", reason: Self.message(error))
        }
    }

    /// Herald's tables (not partitions, not the conversion's own) that Citus does not know yet,
    /// and those ``CitusLayout/byPart`` names that a cluster converted by an earlier Herald keeps
    /// on the coordinator (the chunk tables before migration 0040): `create_distributed_table`
    /// takes those over as it takes a plain table.
    static func unplaced(on connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        let rows = try await connection.query(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND c.relname NOT IN ('herald_citus_foreign_keys', 'herald_citus_sequences')
              AND NOT EXISTS (
                  SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid
                    AND (p.partmethod = 'h' OR c.relname <> ALL(\(CitusLayout.byPart)::text[])
                         OR NOT \(unescaped: hasPart)))
              AND NOT EXISTS (SELECT 1 FROM pg_dist_shard s WHERE c.relname LIKE s.logicalrelid::regclass::text || '\\_%')
            """, logger: logger)
        var tables = Set<String>()
        for try await name in rows.decode(String.self) { tables.insert(name) }
        return tables
    }

    /// Whether the table `c` (a `pg_class` row) has a `part` column, in SQL.
    static let hasPart = "EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'part' AND NOT a.attisdropped)"

    /// The tables of ``CitusLayout/byPart`` that have no `part` column yet.
    static func withoutPart(on connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        let rows = try await connection.query(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(\(CitusLayout.byPart)::text[])
              AND NOT \(unescaped: hasPart)
            """, logger: logger)
        var tables = Set<String>()
        for try await name in rows.decode(String.self) { tables.insert(name) }
        return tables
    }

    /// Whether a conversion noted the sequences and has not restored them yet.
    static func sequencesNoted(on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("SELECT to_regclass('herald_citus_sequences') IS NOT NULL", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
    }

    static func waitingKeys(
        on connection: PostgresConnection, logger: Logger
    ) async throws
        -> [(table: String, name: String, definition: String)]
    {
        let exists =
            try await connection.query(
                "SELECT to_regclass('herald_citus_foreign_keys') IS NOT NULL", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        guard exists else { return [] }
        return try await connection.query(
            "SELECT table_name, name, definition FROM herald_citus_foreign_keys ORDER BY table_name, name", logger: logger
        ).collect().map { try $0.decode((String, String, String).self) }
    }

    /// One step in its own transaction, without the pool's statement timeout (it may move a
    /// large table's rows); a refusal names the step.
    private func step(_ name: String, on connection: PostgresConnection, _ sql: () -> String) async throws {
        do {
            try await transaction(on: connection, sql)
        } catch {
            throw CitusConversionError.refused(step: name, reason: Self.message(error))
        }
        logger.info("citus conversion", metadata: ["step": "\(name)"])
    }

    private func transaction(on connection: PostgresConnection, _ sql: () -> String) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: sql()), logger: logger)
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func message(_ error: any Error) -> String {
        (error as? PSQLError)?.serverInfo?[.message] ?? "\(error)"
    }
}

public enum CitusConversionError: Error, Equatable, CustomStringConvertible {
    case notInstalled
    case noWorkers
    case unreachable([String])
    case pendingMigrations([String])
    case refused(step: String, reason: String)

    public var description: String {
        switch self {
        case .notInstalled:
            "this database has no citus extension (CREATE EXTENSION citus on the coordinator and every worker, then add the workers)"
        case .noWorkers: "the coordinator has no active worker (add them with citus_add_node)"
        case .unreachable(let pairs): "nodes cannot reach each other: \(pairs.joined(separator: ", ")); nothing was changed"
        case .pendingMigrations(let names): "migrations are pending (\(names.joined(separator: ", "))): apply them first"
        case .refused(let step, let reason): "the cluster refused to \(step): \(reason)"
        }
    }
}
