import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Migration 0036 gives every app that exists a key of its own for its campaigns' apns-ids, and
/// leaves the campaigns that exist without one (they keep their UUIDv5 ids).
@Suite struct APNSIDKeyMigrationTests {
    @Test func appsFromBeforeGetTheirOwnKeysAndTheirCampaignsKeepUUIDv5() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                let logger = TestDatabase.logger
                let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
                _ = try await MigrationRunner(client: client, migrations: migrations.filter { $0.name < "0036" }, logger: logger)
                    .migrate()
                for bundle in ["com.example.one", "com.example.two", "com.example.three"] {
                    _ = try await client.query(
                        "INSERT INTO apps (bundle_id, team_id, default_environment) VALUES (\(bundle), 'TEAM123456', 'production')",
                        logger: logger
                    ).collect()
                }
                _ = try await client.query(
                    """
                    INSERT INTO campaigns (app_id, name, template_name, localization_mode)
                    SELECT id, 'Before', 'cart-reminder', 'server' FROM apps WHERE bundle_id = 'com.example.one'
                    """, logger: logger
                ).collect()

                _ = try await MigrationRunner(client: client, migrations: migrations, logger: logger).migrate()
                let keys = try await client.query("SELECT apns_id_key FROM apps ORDER BY id", logger: logger).collect()
                    .map { try $0.decode(ByteBuffer?.self).map { Array(buffer: $0) } }
                #expect(keys.count == 3)
                #expect(keys.allSatisfy { $0?.count == 16 })
                #expect(Set(keys.compactMap { $0 }).count == 3, "each app has a key of its own")
                #expect(keys.allSatisfy { APNSIDCipher(key: $0 ?? []) != nil })
                let campaignKeys = try await client.query("SELECT apns_id_key FROM campaigns", logger: logger).collect()
                    .map { try $0.decode(ByteBuffer?.self) }
                #expect(campaignKeys.count == 1 && campaignKeys[0] == nil)
            }
        }
    }
}
