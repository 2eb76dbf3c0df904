import Foundation
import HeraldStore
import Logging
import PostgresNIO

/// A fresh PostgreSQL database per test, cloned from a template migrated once per run
/// (`CREATE DATABASE … TEMPLATE …`), on the server `HERALD_TEST_DATABASE_URL` names
/// (`ops/test` starts one).
public enum TestDatabase {
    public static let serverURL =
        ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"]
        ?? "postgres://herald@127.0.0.1:5432/herald?sslmode=disable"

    /// The checkout this test binary was built from.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let migrationsDirectory = repositoryRoot.appendingPathComponent("migrations")

    public static let logger = Logger(label: "herald.tests")

    /// Runs `body` with the URL of a new database, migrated (or empty), dropped afterwards.
    public static func withDatabase<Result>(
        migrated: Bool = true, _ body: (String) async throws -> Result
    ) async throws -> Result {
        let name = try await factory.create(migrated: migrated)
        do {
            let result = try await body(url(database: name))
            try await factory.drop(name)
            return result
        } catch {
            try? await factory.drop(name)
            throw error
        }
    }

    /// A running client for `url`, shut down when `body` returns.
    public static func withClient<Result: Sendable>(
        _ url: String, _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(
            configuration: try DatabaseURL(url).clientConfiguration(maxConnections: 8), backgroundLogger: logger.forDatabase)
        return try await client.whileRunning { try await body(client) }
    }

    /// Applies this checkout's migrations named before `name` (all of them when nil): a database
    /// as an older Herald left it, for the tests of an upgrade.
    public static func migrate(_ client: PostgresClient, before name: String? = nil) async throws {
        let all = try Migration.load(from: migrationsDirectory)
        let chosen = name.map { name in Array(all.prefix { $0.name < name }) } ?? all
        try await MigrationRunner(client: client, migrations: chosen, logger: logger).migrate()
    }

    public static func url(database: String) -> String {
        var components = URLComponents(string: serverURL)!
        components.path = "/" + database
        return components.string!
    }

    private static let factory = DatabaseFactory()
}

/// Creates and drops test databases one at a time: a template cannot be copied while it
/// is being copied or migrated.
private actor DatabaseFactory {
    private var template: String?
    private let client: PostgresClient

    init() {
        client = PostgresClient(
            configuration: try! DatabaseURL(TestDatabase.serverURL).clientConfiguration(maxConnections: 2),
            backgroundLogger: TestDatabase.logger.forDatabase)
        let client = client
        Task.detached { await client.run() }
    }

    func create(migrated: Bool) async throws -> String {
        let name = "herald_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        if migrated {
            let template = try await migratedTemplate()
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(template)"))
        } else {
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        return name
    }

    func drop(_ name: String) async throws {
        try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
    }

    /// The migrated template of this checkout's migrations, shared by every test run of them:
    /// named by a hash of the migrations, built under a temporary name and renamed when
    /// complete (a run that dies midway leaves no half-migrated template in use), and the
    /// templates of other migration sets (older checkouts) and half-built ones are dropped, so
    /// the server does not collect one template per run.
    private func migratedTemplate() async throws -> String {
        if let template { return template }
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        let name = "herald_template_" + Self.hash(migrations.map { "\($0.name) \($0.checksum)" }.joined(separator: "\n"))
        if try await !exists(name) {
            let building = "herald_building_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(building)"))
            _ = try await TestDatabase.withClient(TestDatabase.url(database: building)) { client in
                try await MigrationRunner(client: client, migrations: migrations, logger: TestDatabase.logger).migrate()
            }
            do {
                try await client.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(building) RENAME TO \(name)"))
            } catch {
                // Another run built the same template meanwhile: use that one.
                try await drop(building)
                guard try await exists(name) else { throw error }
            }
        }
        let stale = try await client.query(
            """
            SELECT datname FROM pg_database
            WHERE (datname LIKE 'herald_template_%' OR datname LIKE 'herald_building_%') AND datname <> \(name)
            """
        ).collect().map { try $0.decode(String.self) }
        for other in stale {
            // Other migration sets' templates, and templates left half-built by a run that died.
            // One in use (being built, or copied by a concurrent run) is not dropped: no FORCE.
            _ = try? await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(other)"))
        }
        template = name
        return name
    }

    private func exists(_ name: String) async throws -> Bool {
        // Every row read: a row sequence left half-read would hold its connection.
        try await !client.query("SELECT 1 FROM pg_database WHERE datname = \(name)").collect().isEmpty
    }

    /// 16 hex digits of FNV-1a: a name, not a security measure.
    private static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
