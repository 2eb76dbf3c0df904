import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import PostgresNIO
import Synchronization
import Testing

@testable import HeraldAPI
@testable import HeraldServer

@Suite struct AccessTests {
    let devices = "/v1/apps/\(APIHarness.bundleID)/devices"

    @Test(arguments: CitusTestDatabase.engines) func missingUnknownOrMalformedKeysGet401(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            for key in [nil, "hk_" + String(repeating: "0", count: 64), "not-a-key"] {
                let reply = try await h.request(.get, devices, key: key)
                #expect(reply.status == .unauthorized && reply.problemSlug == "unauthorized")
                #expect(reply.headers[.wwwAuthenticate] == "Bearer")
            }
            var headers = HTTPFields()
            headers[.authorization] = "Basic \(h.adminKey)"
            let basic = try await h.client.execute(uri: devices, method: .get, headers: headers, body: nil) { $0.status }
            #expect(basic == .unauthorized)
        }
    }

    @Test func revokedKeysStopAtOnce() async throws {
        // Revoked through the API of this instance: its cache forgets the key with the answer.
        try await APIHarness.with { h in
            #expect(try await h.request(.get, devices, key: h.appKey).status == .ok)
            let id = try #require(try await h.store.keys.list().first { $0.role == .app && $0.bundleID == APIHarness.bundleID }?.id)
            #expect(try await h.request(.delete, "/v1/admin/keys/\(id)", key: h.adminKey).status == .noContent)
            let reply = try await h.request(.put, "\(devices)/\(APIHarness.token(1))", key: h.appKey, body: "{}")
            #expect(reply.status == .unauthorized && reply.problemSlug == "unauthorized")
            #expect(try await h.deviceCount() == 0)
        }
    }

    @Test func aKeyRevokedElsewhereIsForgottenWhenTheRevocationCommits() async throws {
        let cache = APIKeyCache(ttl: .seconds(600))
        try await APIHarness.with(keyCache: cache) { h in
            #expect(try await h.request(.get, devices, key: h.appKey).status == .ok)
            #expect(cache.count >= 1)
            // What `herald serve` runs beside the API; the first notification it hears says it listens.
            let heard = Mutex<Set<Int64>>([])
            let listener = Task {
                try await h.store.changes.listen(for: .seconds(60)) { change in
                    guard case .keyRevoked(let id) = change else { return }
                    heard.withLock { _ = $0.insert(id) }
                    cache.forget(keyID: id)
                }
            }
            defer { listener.cancel() }
            try await waitUntil("the listener hears") {
                _ = try await h.store.client.query("SELECT pg_notify('herald_keys', '0')").collect()
                return heard.withLock { $0.contains(0) }
            }
            // Revoked as the CLI or another instance would: in the database only.
            let id = try #require(try await h.store.keys.list().first { $0.role == .app && $0.bundleID == APIHarness.bundleID }?.id)
            #expect(try await h.store.keys.revoke(id: id, actor: "test"))
            try await waitUntil("the key to be refused") {
                try await h.request(.get, devices, key: h.appKey).status == .unauthorized
            }
        }
    }

    @Test func anExpiredKeyIsRefusedFromTheCacheWithoutTheDatabase() {
        let cache = APIKeyCache(ttl: .seconds(600))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let principal = Principal(
            keyID: 7, keyPrefix: "hk_00000000", role: .admin, appBundleID: nil, expiresAt: now.addingTimeInterval(60))
        cache.remember(principal, for: "hk_secret")
        #expect(cache.principal(for: "hk_secret", date: now) == principal)
        #expect(cache.principal(for: "hk_secret", date: now.addingTimeInterval(61)) == nil)
        #expect(cache.count == 0)
        cache.remember(principal, for: "hk_secret")
        cache.forget(keyID: 7)
        #expect(cache.principal(for: "hk_secret", date: now) == nil)
        #expect(APIKeyCache(ttl: .zero).principal(for: "hk_secret") == nil)
    }

    @Test(arguments: CitusTestDatabase.engines) func appKeysReachOnlyTheirOwnApp(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(1)
            let other = try await h.request(.put, "\(devices)/\(token)", key: h.otherAppKey, body: "{}")
            #expect(other.status == .forbidden && other.problemSlug == "forbidden")
            #expect(try await h.request(.get, devices, key: h.otherAppKey).status == .forbidden)
            let import_ = try await h.request(.post, "\(devices)/import", key: h.otherAppKey, body: #"{"token":"\#(token)"}"#)
            #expect(import_.status == .forbidden)
            #expect(try await h.deviceCount() == 0)
            let own = try await h.request(.put, "/v1/apps/\(APIHarness.otherBundleID)/devices/\(token)", key: h.otherAppKey, body: "{}")
            #expect(own.status == .created)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func marketingReadsButNeverWritesOrPrunes(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(1)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.adminKey, body: "{}")
            #expect(try await h.request(.get, "\(devices)/\(token)", key: h.marketingKey).status == .ok)
            #expect(try await h.request(.get, devices, key: h.marketingKey).status == .ok)
            let before = try await h.devicesSnapshot()
            for (method, path, body) in [
                (HTTPRequest.Method.put, "\(devices)/\(token)", #"{"languages":["de"]}"#),
                (.delete, "\(devices)/\(token)", ""),
                (.post, "\(devices)/import", #"{"token":"\#(APIHarness.token(2))"}"#),
                (.post, "/v1/admin/prune", #"{"notRegisteredSince":"2100-01-01T00:00:00Z"}"#),
            ] {
                let reply = try await h.request(method, path, key: h.marketingKey, body: body)
                #expect(reply.status == .forbidden && reply.problemSlug == "forbidden", "\(method) \(path)")
            }
            let appPrune = try await h.request(.post, "/v1/admin/prune", key: h.appKey, body: #"{"notRegisteredSince":"2100-01-01T00:00:00Z"}"#)
            #expect(appPrune.status == .forbidden)
            #expect(try await h.devicesSnapshot() == before)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func logsNeverContainATokenOrAnAPIKey(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(42)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.appKey, body: #"{"languages":["en"]}"#)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.appKey, body: #"{"languages":["??"]}"#)
            _ = try await h.request(.get, "\(devices)/\(token)zz", key: h.appKey)
            _ = try await h.request(.get, "\(devices)/\(token)", key: h.adminKey + "x")
            _ = try await h.request(.post, "\(devices)/import", key: h.appKey, body: #"{"token":"\#(token)"}"# + "\nnot json\n")
            let text = h.logs.text
            #expect(text.contains("request"))  // the request log is there
            for secret in [token, h.appKey, h.adminKey, String(h.appKey.dropFirst(11))] {
                #expect(!text.contains(secret))
            }
        }
    }
}

/// What the API remembers of apps: forgotten at once when told, and never kept past its life.
@Suite struct AppDirectoryTests {
    @Test(arguments: CitusTestDatabase.engines) func anAppIsReadAgainAfterItsCopyLapsesOrIsForgotten(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let directory = AppDirectory(apps: h.store.apps, ttl: .milliseconds(200))
            #expect(try await directory.require(bundleID: APIHarness.bundleID).defaultEnvironment == .production)
            #expect(directory.count == 1)
            // Changed in the database only, as the CLI or another instance would.
            _ = try await h.store.apps.update(appID: h.app.id, changes: AppChanges(defaultEnvironment: .sandbox), actor: "test")
            directory.forget(appID: h.app.id)
            #expect(try await directory.require(bundleID: APIHarness.bundleID).defaultEnvironment == .sandbox)
            _ = try await h.store.apps.update(appID: h.app.id, changes: AppChanges(defaultEnvironment: .production), actor: "test")
            try await waitUntil("the copy to lapse") {
                try await directory.require(bundleID: APIHarness.bundleID).defaultEnvironment == .production
            }
            // Off: every request reads the app.
            let uncached = AppDirectory(apps: h.store.apps, ttl: .zero)
            _ = try await uncached.require(bundleID: APIHarness.bundleID)
            #expect(uncached.count == 0)
        }
    }
}
