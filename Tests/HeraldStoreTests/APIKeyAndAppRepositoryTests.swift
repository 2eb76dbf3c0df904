import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO
import Testing

@Suite struct APIKeyAndAppRepositoryTests {
    @Test func keysAuthenticateUntilRevokedAndOnlyTheirHashIsStored() async throws {
        try await StoreFixture.with { f in
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

    @Test func appKeysNeedAnAppAndOthersTakeNone() async throws {
        try await StoreFixture.with { f in
            await #expect(throws: ValidationError.self) { try await f.keys.create(role: .app, appID: nil, name: nil, actor: "t") }
            await #expect(throws: ValidationError.self) {
                try await f.keys.create(role: .admin, appID: f.app.id, name: nil, actor: "t")
            }
            let keys = try await f.count("SELECT count(*) FROM api_keys")
            #expect(keys == 0)
        }
    }

    @Test func signingKeysAreSealedAndDuplicateAppsRefused() async throws {
        try await StoreFixture.with { f in
            let sealed = try await f.client.query("SELECT signing_key_sealed FROM apps").collect()
            let bytes = Array(buffer: try #require(sealed.first).decode(ByteBuffer.self))
            #expect(!String(decoding: bytes, as: UTF8.self).contains("secret"))
            #expect(try f.vault.open(bytes).contains("secret"))

            let again = try NewApp(
                bundleID: f.app.bundleID, teamID: "TEAM123456", keyID: "KEY1234567", signingKeyPEM: "x", defaultEnvironment: .sandbox)
            await #expect(throws: ValidationError(field: "bundleID", reason: "an app with this bundle ID exists already")) {
                try await f.apps.add(again, actor: "test")
            }
            #expect(try await f.apps.list().count == 1)
            #expect(try await f.apps.find(bundleID: f.app.bundleID)?.defaultEnvironment == .sandbox)
        }
    }
}
