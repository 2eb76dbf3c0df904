import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO

/// Repositories on a fresh database, with one app added.
struct StoreFixture {
    let client: PostgresClient
    let apps: PostgresAppRepository
    let devices: PostgresDeviceRepository
    let keys: PostgresAPIKeyRepository
    let vault: SigningKeyVault
    let app: App

    static let secret = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    static func with(_ body: @Sendable (StoreFixture) async throws -> Void) async throws {
        try await TestDatabase.withDatabase { url in try await with(url: url, body) }
    }

    /// The same on one PostgreSQL, or on the Citus cluster's database, distributed (a test that
    /// takes `arguments: CitusTestDatabase.engines`).
    static func with(onCluster: Bool, _ body: @Sendable (StoreFixture) async throws -> Void) async throws {
        guard onCluster else { return try await with(body) }
        try await CitusTestDatabase.with { url in try await with(url: url, body) }
    }

    /// The same on the migrated database at `url` (a Citus cluster's, for one).
    static func with(url: String, _ body: @Sendable (StoreFixture) async throws -> Void) async throws {
        try await TestDatabase.withClient(url) { client in
            let logger = TestDatabase.logger
            let vault = try SigningKeyVault(base64Secret: secret)
            let apps = PostgresAppRepository(client: client, vault: vault, logger: logger)
            let app = try await apps.add(
                try NewApp(
                    bundleID: "com.example.store", teamID: "TEAM123456", keyID: "KEY1234567",
                    signingKeyPEM: TestSigningKey.pem(),
                    defaultEnvironment: .sandbox),
                actor: "test")
            try await body(
                StoreFixture(
                    client: client, apps: apps, devices: PostgresDeviceRepository(client: client, logger: logger),
                    keys: PostgresAPIKeyRepository(client: client, logger: logger), vault: vault, app: app))
        }
    }

    func pruner(batchSize: Int) -> PostgresDevicePruner {
        PostgresDevicePruner(client: client, batchSize: batchSize, logger: TestDatabase.logger)
    }

    static func token(_ n: Int) -> DeviceToken {
        try! DeviceToken(hex: String(format: "%016x%016x", n, n &* 2_654_435_761))
    }

    static func registration(
        languages: [String] = ["en"], userID: String? = nil, attributes: [String: PayloadValue] = [:]
    ) -> DeviceRegistration {
        try! DeviceRegistration(
            environment: .sandbox, languages: languages, authorization: AuthorizationSettings(status: .authorized, alert: true),
            timeZone: "Europe/Paris", userID: userID, attributes: attributes)
    }

    /// Marks a device invalid as the delivery engine will, `daysAgo` days back.
    func invalidate(_ token: DeviceToken, reason: String, daysAgo: Int) async throws {
        try await client.query(
            """
            UPDATE devices SET invalidated_at = now() - make_interval(days => \(Int32(daysAgo))), invalidation_reason = \(reason)
            WHERE app_id = \(app.id) AND token = \(ByteBuffer(bytes: token.bytes))
            """)
    }

    func count(_ sql: String) async throws -> Int {
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql)).collect()
        return Int(try rows.first?.decode(Int64.self) ?? -1)
    }
}
