import APNSCore
import Foundation
import HeraldAPI
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO

@testable import HeraldServer

/// The real application (composition root, PostgreSQL store) on a fresh database, driven
/// through Hummingbird's router test client, with keys for every role.
struct APIHarness {
    let client: any TestClientProtocol
    let store: Store
    let app: App
    let otherApp: App
    let adminKey: String
    let marketingKey: String
    let appKey: String
    let otherAppKey: String
    let logs: LogCapture

    static let bundleID = "com.example.herald"
    static let otherBundleID = "com.example.other"

    /// `keyCache`: the API's cache of authenticated keys, for tests that watch it (else the
    /// configuration's). `onCluster`: on the Citus cluster's database, distributed (a test that takes
    /// `arguments: CitusTestDatabase.engines`), instead of a fresh one-PostgreSQL database.
    static func with(
        adjust: (inout HeraldConfiguration) -> Void = { _ in }, testing: TestingSetup = .router,
        keyCache: APIKeyCache? = nil, onCluster: Bool = false, _ body: @Sendable (APIHarness) async throws -> Void
    ) async throws {
        let run: (String) async throws -> Void = { url in
            try await with(url: url, adjust: adjust, testing: testing, keyCache: keyCache, body)
        }
        if onCluster { try await CitusTestDatabase.with(run) } else { try await TestDatabase.withDatabase(run) }
    }

    private static func with(
        url: String, adjust: (inout HeraldConfiguration) -> Void, testing: TestingSetup, keyCache: APIKeyCache?,
        _ body: @Sendable (APIHarness) async throws -> Void
    ) async throws {
        do {
            var configuration = HeraldConfiguration()
            configuration.databaseURL = url
            configuration.migrationsDirectory = TestDatabase.migrationsDirectory.path
            configuration.secretKey = Data(repeating: 7, count: 32).base64EncodedString()
            configuration.pruneBatchSize = 2
            // Campaign lifecycle tests decide every transition themselves; the engine has its own suites.
            configuration.engineEnabled = false
            adjust(&configuration)
            let logs = LogCapture()
            let logger = logs.logger()
            let store = try Store(configuration: configuration, logger: logger)
            let application = buildApplication(
                configuration: configuration, store: store, logger: logger, keyCache: keyCache, metricsText: { "# metrics\n" })
            try await application.test(testing) { client in
                let app = try await store.apps.add(Self.newApp(bundleID), actor: "test")
                let otherApp = try await store.apps.add(Self.newApp(otherBundleID), actor: "test")
                let admin = try await store.keys.create(role: .admin, appID: nil, name: nil, actor: "test").1
                let marketing = try await store.keys.create(role: .marketing, appID: nil, name: nil, actor: "test").1
                let appKey = try await store.keys.create(role: .app, appID: app.id, name: nil, actor: "test").1
                let otherKey = try await store.keys.create(role: .app, appID: otherApp.id, name: nil, actor: "test").1
                try await body(
                    APIHarness(
                        client: client, store: store, app: app, otherApp: otherApp, adminKey: admin.value,
                        marketingKey: marketing.value, appKey: appKey.value, otherAppKey: otherKey.value, logs: logs))
            }
        }
    }

    static func newApp(_ bundleID: String) throws -> NewApp {
        try NewApp(
            bundleID: bundleID, teamID: "TEAM123456", keyID: "KEY1234567",
            signingKeyPEM: TestSigningKey.pem(), defaultEnvironment: .production)
    }

    static func token(_ n: Int) -> String {
        String(format: "%016x%016x", n, n &* 2_654_435_761)
    }

    /// Sends a request and returns status, headers and the body parsed as JSON (if any).
    func request(
        _ method: HTTPRequest.Method, _ path: String, key: String?, body: String? = nil
    ) async throws -> Reply {
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        headers[.contentType] = "application/json"
        return try await client.execute(
            uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
        ) { response in
            Reply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        }
    }

    func deviceCount() async throws -> Int {
        let rows = try await store.client.query("SELECT count(*) FROM devices").collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    func devicesSnapshot() async throws -> String {
        let rows = try await store.client.query(
            "SELECT coalesce(string_agg(to_jsonb(d)::text, '\n' ORDER BY id), '') FROM devices d"
        ).collect()
        return try rows.first!.decode(String.self)
    }
}

struct Reply: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: String

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    /// The problem type's last part, e.g. `invalid-field`.
    var problemSlug: String? {
        (json["type"] as? String).map { $0.replacingOccurrences(of: "urn:herald:problem:", with: "") }
    }
}
