import Foundation
import HeraldStore
import PostgresNIO

/// The database of a Citus cluster's coordinator that `HERALD_TEST_CITUS_URL` names (`ops/citus
/// start` prints one; `ops/test` sets it when Citus is installed), for the tests that run Herald
/// on a cluster (docs/scaling.md). A cluster database cannot be cloned from a template, so there
/// is one, used by one test at a time: the first starts by emptying it (Herald's tables dropped,
/// which drops their shards on the workers too), migrating and converting it; the next ones, when
/// its tables are still those, empty them (`TRUNCATE … RESTART IDENTITY`, and tables added since
/// dropped), which takes a second instead of five.
public enum CitusTestDatabase {
    public static let url = ProcessInfo.processInfo.environment["HERALD_TEST_CITUS_URL"]
    /// The cluster's folder (`ops/citus start DIR`), for the tests that stop a worker.
    public static let directory = ProcessInfo.processInfo.environment["HERALD_TEST_CITUS_DIR"]

    public static var isAvailable: Bool { url != nil }
    /// `HERALD_TEST_CITUS_ONLY`: the tests written for both engines run on the cluster only.
    public static let only = ProcessInfo.processInfo.environment["HERALD_TEST_CITUS_ONLY"] != nil
    /// The engines a test written for both runs on, as its `onCluster` argument: one PostgreSQL,
    /// and the cluster when `HERALD_TEST_CITUS_URL` names one; only the cluster when
    /// `HERALD_TEST_CITUS_ONLY` is set (ops/test's cluster run, beside the one-PostgreSQL run).
    public static let engines = isAvailable ? (only ? [true] : [false, true]) : [false]

    /// Runs `body` with the cluster's database, emptied and migrated, and distributed by
    /// `herald migrate`'s conversion unless `converted` is false.
    public static func with<Result>(converted: Bool = true, _ body: (String) async throws -> Result) async throws -> Result {
        try await inTurn { url in
            let empty = converted ? try await emptied(url) : false
            if !empty { try await reset(url, converted: converted) }
            return try await body(url)
        }
    }

    /// Runs `body` on the cluster's database migrated up to, not including, `migration` (a
    /// name's prefix, such as `0036`) and not distributed: a test converts it and then applies
    /// the rest, as a user who moved to a cluster before that migration shipped does.
    public static func with<Result>(migratedBefore migration: String, _ body: (String) async throws -> Result) async throws -> Result {
        try await inTurn { url in
            try await reset(url, converted: false, before: migration)
            return try await body(url)
        }
    }

    /// Runs `body` with the cluster's URL while no other test uses the cluster.
    private static func inTurn<Result>(_ body: (String) async throws -> Result) async throws -> Result {
        guard let url else { throw CitusTestError.noCluster }
        await turns.acquire()
        do {
            let result = try await body(url)
            await turns.release()
            return result
        } catch {
            await turns.release()
            throw error
        }
    }

    /// Runs `ops/citus` with `arguments` (to stop or start a worker), its output discarded.
    /// Spawned and waited for directly: Foundation's `Process` can miss the exit of a script
    /// that leaves a server running behind it. It is waited for on a thread of its own (``onOwnThread``): stopping or starting a
    /// worker takes seconds.
    public static func ops(_ arguments: [String]) async throws {
        guard let directory else { throw CitusTestError.noDirectory }
        try await onOwnThread { try spawnAndWait(arguments, directory: directory) }
    }

    private static func spawnAndWait(_ arguments: [String], directory: String) throws {
        let script = TestDatabase.repositoryRoot.appendingPathComponent("ops/citus").path
        let command = "exec \"$0\" \"$@\" >/dev/null 2>&1 </dev/null"
        let argv = ["/bin/sh", "-c", command, script, arguments[0], directory] + arguments.dropFirst()
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &cArguments, environ) == 0 else {
            throw CitusTestError.opsFailed(arguments.joined(separator: " "))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw CitusTestError.opsFailed(arguments.joined(separator: " ")) }
    }

    private static func reset(_ url: String, converted: Bool, before migration: String? = nil) async throws {
        try await TestDatabase.withClient(url) { client in
            // Herald's tables, sequences and functions, not the schema: Citus keeps views of
            // its own in it.
            let objects = try await client.query(
                """
                SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::regclass::text FROM pg_class c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'S')
                  AND NOT c.relispartition
                  -- Not Citus's own; a sequence that belongs to a column goes with its table.
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid
                                  AND (d.deptype = 'e' OR (c.relkind = 'S' AND d.deptype IN ('a', 'i'))))
                UNION ALL
                SELECT 'FUNCTION', p.oid::regprocedure::text FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
                ORDER BY 1 DESC
                """
            ).collect().map { try $0.decode((String, String).self) }
            for (kind, name) in objects {
                try await client.query(PostgresQuery(unsafeSQL: "DROP \(kind) IF EXISTS \(name) CASCADE"))
            }
            let migrations = try Migration.load(from: TestDatabase.migrationsDirectory).filter { migration == nil || $0.name < migration! }
            let runner = MigrationRunner(client: client, migrations: migrations, logger: TestDatabase.logger)
            try await runner.migrate()
            if converted {
                _ = try await CitusConversion(client: client, logger: TestDatabase.logger).convert(after: runner)
                baseline = try await tables(client)
            } else {
                baseline = nil
            }
        }
    }

    /// The tables of the migrated, converted database, when the last reset left one (tests run
    /// one at a time, under `turns`).
    nonisolated(unsafe) private static var baseline: Set<String>?

    /// Empties the converted database when its tables are the baseline's, or only more (a
    /// ledger partition a test created, dropped here); false when a full reset is needed.
    private static func emptied(_ url: String) async throws -> Bool {
        guard let baseline else { return false }
        do {
            return try await TestDatabase.withClient(url) { client in
                let now = try await tables(client)
                let added = now.subtracting(baseline)
                // Only tables (ledger partitions) may have been added; a constraint or function
                // changed by a test means a full reset.
                guard now.isSuperset(of: baseline), added.allSatisfy({ $0.hasPrefix("table ") }) else { return false }
                for table in added {
                    try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table.dropFirst(6)) CASCADE"))
                }
                let emptied = try await client.query(
                    """
                    SELECT string_agg(c.oid::regclass::text, ', ') FROM pg_class c
                    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                      AND c.relname <> 'herald_schema_migrations'
                      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
                    """
                ).collect().first?.decode(String.self)
                guard let emptied else { return false }
                try await client.query(PostgresQuery(unsafeSQL: "TRUNCATE \(emptied) RESTART IDENTITY CASCADE"))
                return true
            }
        } catch {
            TestDatabase.logger.warning("emptying the cluster's database failed (\(error)); migrating it again")
            return false
        }
    }

    /// Herald's schema as far as a test may change it: its tables and partitions, the
    /// constraints of its tables (not partitions), and its functions with their bodies.
    private static func tables(_ client: PostgresClient) async throws -> Set<String> {
        let rows = try await client.query(
            """
            SELECT 'table ' || c.oid::regclass::text FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
            UNION ALL
            SELECT 'constraint ' || k.conrelid::regclass::text || ' ' || k.conname || ' ' || md5(pg_get_constraintdef(k.oid))
            FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
            WHERE k.connamespace = 'public'::regnamespace AND NOT c.relispartition
            UNION ALL
            SELECT 'function ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
            """
        ).collect()
        return Set(try rows.map { try $0.decode(String.self) })
    }

    private static let turns = Turns()
}

public enum CitusTestError: Error, CustomStringConvertible {
    case noCluster
    case noDirectory
    case opsFailed(String)

    public var description: String {
        switch self {
        case .noCluster: "HERALD_TEST_CITUS_URL is not set"
        case .noDirectory: "HERALD_TEST_CITUS_DIR is not set"
        case .opsFailed(let command): "ops/citus \(command) failed"
        }
    }
}

/// One holder at a time, in arrival order.
private actor Turns {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
