import Foundation
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct MigrationRunnerTests {
    let logger = TestDatabase.logger

    func copyOfMigrations() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-migrations-\(UUID())")
        try FileManager.default.copyItem(at: TestDatabase.migrationsDirectory, to: directory)
        return directory
    }

    @Test func appliesOnceAndIsIdempotent() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
                let runner = MigrationRunner(client: client, migrations: migrations, logger: logger)
                #expect(try await runner.pending() == migrations.map(\.name))
                #expect(try await runner.migrate() == migrations.map(\.name))
                #expect(try await runner.migrate() == [])
                #expect(try await runner.pending() == [])
                let rows = try await client.query("SELECT count(*) FROM herald_schema_migrations").collect()
                #expect(try rows.first?.decode(Int64.self) == Int64(migrations.count))
            }
        }
    }

    @Test func refusesToRunWhenAnAppliedFileWasEdited() async throws {
        let directory = try copyOfMigrations()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                try await MigrationRunner(client: client, migrations: try Migration.load(from: directory), logger: logger).migrate()
                let file = directory.appendingPathComponent("0001_create_registry.sql")
                try (try String(contentsOf: file, encoding: .utf8) + "\n-- edited\n").write(to: file, atomically: true, encoding: .utf8)
                let edited = MigrationRunner(client: client, migrations: try Migration.load(from: directory), logger: logger)
                await #expect(throws: MigrationError.edited("0001_create_registry.sql")) { try await edited.migrate() }
                await #expect(throws: MigrationError.edited("0001_create_registry.sql")) { try await edited.pending() }
            }
        }
    }

    @Test func aFailingMigrationRollsBackWhole() async throws {
        let directory = try copyOfMigrations()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "CREATE TABLE half_done (x int);\nSELECT no_such_function();\n"
            .write(to: directory.appendingPathComponent("9999_break_things.sql"), atomically: true, encoding: .utf8)
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                let runner = MigrationRunner(client: client, migrations: try Migration.load(from: directory), logger: logger)
                await #expect(throws: MigrationError.self) { try await runner.migrate() }
                #expect(try await runner.pending() == ["9999_break_things.sql"])
                let exists = try await client.query("SELECT to_regclass('half_done') IS NOT NULL").collect()
                #expect(try exists.first?.decode(Bool.self) == false)
            }
        }
    }

    @Test func twoConcurrentRunnersApplyEachFileOnce() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
            async let first = TestDatabase.withClient(url) { client in
                try await MigrationRunner(client: client, migrations: migrations, logger: logger).migrate()
            }
            async let second = TestDatabase.withClient(url) { client in
                try await MigrationRunner(client: client, migrations: migrations, logger: logger).migrate()
            }
            let (a, b) = try await (first, second)
            #expect((a + b).sorted() == migrations.map(\.name))
        }
    }

    @Test func refusesBadlyNamedFiles() throws {
        let directory = try copyOfMigrations()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "SELECT 1;".write(to: directory.appendingPathComponent("2_Bad Name.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.badName("2_Bad Name.sql")) { try Migration.load(from: directory) }
    }
}
