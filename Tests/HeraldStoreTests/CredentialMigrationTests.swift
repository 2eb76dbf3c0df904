import Crypto
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Migration 0013 moves each app's signing key into `app_credentials`: a database that holds
/// apps from before it keeps sending with the same key afterwards.
@Suite struct CredentialMigrationTests {
    @Test func keysStoredBeforeCredentialsWereRowsStillOpenAfterTheMigration() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                let logger = TestDatabase.logger
                let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
                let before = migrations.filter { $0.name < "0013" }
                _ = try await MigrationRunner(client: client, migrations: before, logger: logger).migrate()

                // An app as Herald stored it before: the PEM sealed with AES-GCM and no binding.
                let secret = Data((0..<32).map { UInt8($0) })
                let pem = TestSigningKey.pem()
                let sealed = try #require(try AES.GCM.seal(Data(pem.utf8), using: SymmetricKey(data: secret)).combined)
                _ = try await client.query(
                    """
                    INSERT INTO apps (bundle_id, team_id, key_id, signing_key_sealed, default_environment)
                    VALUES ('com.example.old', 'TEAM123456', 'OLDKEY1234', \(ByteBuffer(bytes: Array(sealed))), 'production')
                    """, logger: logger
                ).collect()

                _ = try await MigrationRunner(client: client, migrations: migrations, logger: logger).migrate()
                let apps = PostgresAppRepository(
                    client: client, vault: try SigningKeyVault(base64Secret: secret.base64EncodedString()), logger: logger)
                let app = try #require(try await apps.find(bundleID: "com.example.old"))
                #expect(app.keyID == "OLDKEY1234" && app.disabledAt == nil)
                let active = try #require(try await apps.activeCredential(appID: app.id))
                #expect(active.secret == .signingKey(pem: pem))
                #expect(active.credential.state == .active && active.credential.fingerprint == nil)

                // A key added now is sealed to its row and can take over.
                let added = try await apps.addCredential(
                    appID: app.id, .signingKey(try NewSigningKey(keyID: "NEWKEY1234", pem: TestSigningKey.pem())), activate: true,
                    actor: "test")
                #expect(try await apps.activeCredential(appID: app.id)?.credential.id == added.id)
            }
        }
    }
}
