import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct APIKeyAndAppRepositoryTests {
    @Test(arguments: CitusTestDatabase.engines) func keysAuthenticateUntilRevokedAndOnlyTheirHashIsStored(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let (key, secret) = try await f.keys.create(role: .app, appID: f.app.id, name: "backend", actor: "test")
            #expect(key.bundleID == f.app.bundleID && key.prefix == secret.prefix)
            let principal = try #require(try await f.keys.authenticate(secret.value))
            #expect(principal.role == .app && principal.appBundleID == f.app.bundleID)
            #expect(try await f.keys.authenticate(secret.value + "0") == nil)
            #expect(try await f.keys.authenticate(APIKeySecret().value) == nil)

            let stored = try await f.client.query("SELECT prefix || encode(key_hash, 'hex') FROM api_keys").collect()
            #expect(try !stored.contains { try $0.decode(String.self).contains(secret.value.dropFirst(11)) })

            #expect(try await f.keys.revoke(id: key.id, actor: "test"))
            #expect(try await !f.keys.revoke(id: key.id, actor: "test"))
            #expect(try await f.keys.authenticate(secret.value) == nil)
            #expect(try await f.keys.list().first?.revokedAt != nil)
        }
    }

    /// A bundle ID no app can have (a NUL, a control character, too long) finds nothing; it
    /// never reaches PostgreSQL, which would refuse the NUL with an error.
    @Test(arguments: CitusTestDatabase.engines) func aBundleIDNoAppCanHaveFindsNothing(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            for bundleID in ["com.example\u{0}app", "com.example\napp", String(repeating: "a", count: 200), "", "."] {
                let found = try await f.apps.find(bundleID: bundleID)
                #expect(found == nil, "\(bundleID.debugDescription)")
            }
            let app = try await f.apps.find(bundleID: f.app.bundleID)
            #expect(app?.id == f.app.id)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func appKeysNeedAnAppAndOthersTakeNone(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            await #expect(throws: ValidationError.self) { try await f.keys.create(role: .app, appID: nil, name: nil, actor: "t") }
            await #expect(throws: ValidationError.self) {
                try await f.keys.create(role: .admin, appID: f.app.id, name: nil, actor: "t")
            }
            let keys = try await f.count("SELECT count(*) FROM api_keys")
            #expect(keys == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func signingKeysAreSealedToTheirRowAndDuplicateAppsRefused(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let rows = try await f.client.query("SELECT id, secret_sealed FROM app_credentials").collect()
            let (credentialID, buffer) = try #require(rows.first).decode((Int64, ByteBuffer).self)
            let bytes = Array(buffer: buffer)
            #expect(!String(decoding: bytes, as: UTF8.self).contains("PRIVATE KEY"))
            #expect(try f.vault.open(bytes, format: 2, appID: f.app.id, credentialID: credentialID).contains("BEGIN PRIVATE KEY"))
            // Bound to its row: the same bytes on another row (or read without the binding) do not open.
            #expect(throws: SigningKeyVaultError.self) { try f.vault.open(bytes, format: 2, appID: f.app.id + 1, credentialID: credentialID) }
            #expect(throws: SigningKeyVaultError.self) { try f.vault.open(bytes, format: 1, appID: f.app.id, credentialID: credentialID) }

            let again = try NewApp(
                bundleID: f.app.bundleID, teamID: "TEAM123456", keyID: "KEY1234567", signingKeyPEM: TestSigningKey.pem(),
                defaultEnvironment: .sandbox)
            await #expect(throws: ValidationError(field: "bundleID", reason: "an app with this bundle ID exists already")) {
                try await f.apps.add(again, actor: "test")
            }
            #expect(try await f.apps.list().count == 1)
            #expect(try await f.apps.find(bundleID: f.app.bundleID)?.defaultEnvironment == .sandbox)
            #expect(try await f.count("SELECT count(*) FROM app_credentials") == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func credentialsSwitchOneActiveAtATimeAndRetiredSecretsAreWiped(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let first = try #require(try await f.apps.credentials(appID: f.app.id).first)
            #expect(first.state == .active && first.keyID == "KEY1234567" && first.fingerprint?.count == 16)
            let newPEM = TestSigningKey.pem()
            let second = try await f.apps.addCredential(
                appID: f.app.id, .signingKey(try NewSigningKey(keyID: "KEY2345678", pem: newPEM)), activate: false, actor: "admin")
            #expect(second.state == .standby && second.activatedAt == nil)
            #expect(try await f.apps.activeCredential(appID: f.app.id)?.credential.id == first.id)
            #expect(try await f.apps.sendingState(appID: f.app.id) == AppSendingState(activeCredentialID: first.id, disabled: false))

            // The active one cannot be retired; the standby one becomes active, the old one standby.
            await #expect(throws: CredentialStateError.self) {
                try await f.apps.retireCredential(appID: f.app.id, credentialID: first.id, actor: "admin")
            }
            let activated = try #require(try await f.apps.activateCredential(appID: f.app.id, credentialID: second.id, actor: "admin"))
            #expect(activated.state == .active && activated.activatedAt != nil)
            let active = try #require(try await f.apps.activeCredential(appID: f.app.id))
            #expect(active.credential.id == second.id && active.secret == .signingKey(pem: newPEM))
            #expect(try await f.apps.find(id: f.app.id)?.keyID == "KEY2345678")
            #expect(try await f.apps.credentials(appID: f.app.id).map(\.state) == [.standby, .active])
            // Activating the active one again changes nothing.
            #expect(try await f.apps.activateCredential(appID: f.app.id, credentialID: second.id, actor: "admin")?.state == .active)

            let retired = try #require(try await f.apps.retireCredential(appID: f.app.id, credentialID: first.id, actor: "admin"))
            #expect(retired.state == .retired && retired.retiredAt != nil)
            #expect(try await f.count("SELECT count(*) FROM app_credentials WHERE secret_sealed IS NULL") == 1)
            await #expect(throws: CredentialStateError.self) {
                try await f.apps.activateCredential(appID: f.app.id, credentialID: first.id, actor: "admin")
            }
            // Another app's credential is not this app's.
            #expect(try await f.apps.activateCredential(appID: f.app.id + 1_000, credentialID: second.id, actor: "admin") == nil)
            #expect(try await f.apps.retireCredential(appID: f.app.id, credentialID: 999_999, actor: "admin") == nil)

            // Adding with activate switches at once.
            let third = try await f.apps.addCredential(
                appID: f.app.id, .signingKey(try NewSigningKey(keyID: "KEY3456789", pem: TestSigningKey.pem())), activate: true,
                actor: "admin")
            #expect(try await f.apps.credentials(appID: f.app.id).map(\.state) == [.retired, .standby, .active])
            #expect(try await f.apps.sendingState(appID: f.app.id)?.activeCredentialID == third.id)
            let actions = try await f.client.query(
                "SELECT action FROM audit_log WHERE action LIKE 'credential.%' ORDER BY id"
            ).collect().map { try $0.decode(String.self) }
            #expect(actions == ["credential.add", "credential.activate", "credential.retire", "credential.add+activate"])
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func disablingAnAppShowsInItsSendingState(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let disabled = try #require(try await f.apps.update(appID: f.app.id, changes: AppChanges(disabled: true), actor: "admin"))
            #expect(disabled.disabledAt != nil)
            #expect(try await f.apps.sendingState(appID: f.app.id)?.disabled == true)
            let moved = try #require(
                try await f.apps.update(
                    appID: f.app.id,
                    changes: AppChanges(defaultEnvironment: .production, apnsEndpoint: .some("https://127.0.0.1:2197"), disabled: false),
                    actor: "admin"))
            #expect(moved.disabledAt == nil && moved.defaultEnvironment == .production && moved.apnsEndpoint == "https://127.0.0.1:2197")
            let cleared = try #require(try await f.apps.update(appID: f.app.id, changes: AppChanges(apnsEndpoint: .some(nil)), actor: "admin"))
            #expect(cleared.apnsEndpoint == nil && cleared.defaultEnvironment == .production)
            #expect(try await f.apps.update(appID: 999_999, changes: AppChanges(disabled: true), actor: "admin") == nil)
            #expect(try await f.apps.sendingState(appID: 999_999) == nil)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func keysExpireAndScopedKeysNameTheirApps(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let soon = Date().addingTimeInterval(3_600)
            let (expiring, expiringSecret) = try await f.keys.create(try NewAPIKey(role: .admin, expiresAt: soon), actor: "test")
            #expect(expiring.expiresAt != nil)
            #expect(try await f.keys.authenticate(expiringSecret.value) != nil)
            _ = try await f.client.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = \(expiring.id)").collect()
            #expect(try await f.keys.authenticate(expiringSecret.value) == nil)

            let (scoped, scopedSecret) = try await f.keys.create(
                try NewAPIKey(role: .marketing, appScope: [f.app.id], name: "store team"), actor: "test")
            #expect(scoped.appScope == [f.app.bundleID])
            let principal = try #require(try await f.keys.authenticate(scopedSecret.value))
            #expect(principal.appScope == [f.app.bundleID])
            #expect(principal.mayUse(bundleID: f.app.bundleID) && !principal.mayUse(bundleID: "com.example.other"))
            let (_, open) = try await f.keys.create(role: .marketing, appID: nil, name: nil, actor: "test")
            #expect(try await f.keys.authenticate(open.value)?.appScope == nil)
            #expect(try await f.keys.list().map(\.id).first == scoped.id + 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func theAuditLogReadsNewestFirstByFilterAndPage(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let audit = PostgresAuditRepository(client: f.client, logger: TestDatabase.logger)
            for index in 0..<5 {
                _ = try await f.keys.create(role: .admin, appID: nil, name: "key \(index)", actor: index.isMultiple(of: 2) ? "alice" : "bob")
            }
            _ = try await f.apps.update(appID: f.app.id, changes: AppChanges(disabled: true), actor: "alice")
            let first = try await audit.list(AuditQuery(limit: 3))
            #expect(first.entries.count == 3 && first.nextCursor != nil)
            #expect(first.entries.first?.action == "app.update" && first.entries.first?.bundleID == f.app.bundleID)
            #expect(first.entries.first?.details == ["disabled": true])
            let rest = try await audit.list(AuditQuery(cursor: first.nextCursor, limit: 100))
            // Five keys, the app's update, and the fixture's app.add.
            #expect(first.entries.count + rest.entries.count == 7 && rest.nextCursor == nil)
            #expect(Set(first.entries.map(\.id)).isDisjoint(with: rest.entries.map(\.id)))
            #expect(try await audit.list(AuditQuery(actor: "bob")).entries.count == 2)
            #expect(try await audit.list(AuditQuery(action: "key.create", appID: nil)).entries.count == 5)
            #expect(try await audit.list(AuditQuery(appID: f.app.id)).entries.map(\.action) == ["app.update", "app.add"])
            #expect(try await audit.list(AuditQuery(since: Date().addingTimeInterval(3600))).entries.isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func rotatingTheSecretResealsEveryCredentialInOneGo(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let pem = TestSigningKey.pem()
            _ = try await f.apps.addCredential(
                appID: f.app.id, .signingKey(try NewSigningKey(keyID: "KEY2345678", pem: pem)), activate: false, actor: "t")
            let newSecret = Data(repeating: 9, count: 32).base64EncodedString()
            let both = PostgresAppRepository(
                client: f.client, vault: try SigningKeyVault(base64Secret: newSecret, previous: [StoreFixture.secret]),
                logger: TestDatabase.logger)
            let newOnly = PostgresAppRepository(
                client: f.client, vault: try SigningKeyVault(base64Secret: newSecret), logger: TestDatabase.logger)
            // During the change, the old secret still opens; the new one alone does not yet.
            #expect(try await both.activeCredential(appID: f.app.id) != nil)
            await #expect(throws: (any Error).self) { try await newOnly.activeCredential(appID: f.app.id) }
            // A rotation without the old secret changes nothing, and names the rows it cannot open.
            let refused = await #expect(throws: SecretKeyMismatch.self) { try await newOnly.resealAll(actor: "t") }
            // The credentials' IDs as the database gave them (a cluster's identity may skip values).
            let ids = try await f.client.query("SELECT id FROM app_credentials WHERE app_id = \(f.app.id) ORDER BY id").collect()
                .map { try $0.decode(Int64.self) }
            #expect(ids.count == 2)
            #expect(refused?.unopenable.map(\.description) == ids.map { "credential \($0) of com.example.store" })
            #expect(try await f.apps.activeCredential(appID: f.app.id) != nil)

            #expect(try await both.resealAll(actor: "admin") == 2)
            #expect(try await newOnly.activeCredential(appID: f.app.id) != nil)
            await #expect(throws: (any Error).self) { try await f.apps.activeCredential(appID: f.app.id) }
            let standby = try await newOnly.activateCredential(appID: f.app.id, credentialID: try #require(ids.last), actor: "t")
            #expect(standby?.state == .active)
            #expect(try await newOnly.activeCredential(appID: f.app.id)?.secret == .signingKey(pem: pem))
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'secrets.rotate'") == 1)
            #expect(throws: SigningKeyVaultError.self) { try SigningKeyVault(base64Secret: newSecret, previous: ["short"]) }
        }
    }
}
