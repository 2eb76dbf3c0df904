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

    private func migratedTemplate() async throws -> String {
        if let template { return template }
        let name = "herald_template_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        try await TestDatabase.withClient(TestDatabase.url(database: name)) { client in
            let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
            try await MigrationRunner(client: client, migrations: migrations, logger: TestDatabase.logger).migrate()
        }
        template = name
        return name
    }
}
