import APNSCore
import APNSSimulator
import Crypto
import Foundation
import HeraldCore
import HeraldStore
import HeraldTemplates
import HeraldTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HeraldServer

/// A fresh database with the sample templates and one app whose endpoint is an APNs
/// simulator on loopback (real TLS HTTP/2, recording every accepted notification), and the
/// real delivery engine (`EngineService`, as `herald serve` runs it) on top.
struct EngineHarness {
    static let bundleID = "com.example.herald"
    static let keyID = "KEY1234567"

    let store: Store
    let configuration: HeraldConfiguration
    let app: App
    let simulator: APNSSimulator
    let recordFile: String
    let logs: LogCapture

    /// `moreProviderKeys`: further signing keys the simulator accepts, by key ID (for key switches).
    /// `clientCertificateAuthority`: the simulator requires client certificates issued by it.
    static func with(
        fault: SimulatorFaultScript = SimulatorFaultScript(), moreProviderKeys: [String: P256.Signing.PublicKey] = [:],
        clientCertificateAuthority: TestCertificateAuthority? = nil, providerTokenUpdateInterval: Duration? = nil,
        adjust: (inout HeraldConfiguration) -> Void = { _ in }, onCluster: Bool = false,
        _ body: @Sendable (EngineHarness) async throws -> Void
    ) async throws {
        // A fresh database of the test server, or the Citus cluster's, distributed
        // (`HERALD_TEST_CITUS_URL`, docs/scaling.md).
        func database(_ run: (String) async throws -> Void) async throws {
            if onCluster { try await CitusTestDatabase.with(run) } else { try await TestDatabase.withDatabase(run) }
        }
        let key = P256.Signing.PrivateKey()
        let recordFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sim-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        var simulatorConfiguration = SimulatorConfiguration(
            providerKeys: moreProviderKeys.merging([keyID: key.publicKey]) { $1 }, recordFile: recordFile, fault: fault,
            clientCertificateAuthorityPEM: clientCertificateAuthority?.pem,
            requireClientCertificates: clientCertificateAuthority != nil)
        simulatorConfiguration.providerTokenUpdateInterval = providerTokenUpdateInterval
        simulatorConfiguration.managementPort = 0
        let simulator = try await APNSSimulator.start(configuration: simulatorConfiguration)
        do {
            try await database { url in
                var configuration = HeraldConfiguration()
                configuration.databaseURL = url
                configuration.migrationsDirectory = TestDatabase.migrationsDirectory.path
                configuration.secretKey = Data(repeating: 7, count: 32).base64EncodedString()
                configuration.enginePollMilliseconds = 50
                configuration.engineBatchSize = 200
                configuration.liveActivityBatchSize = 100
                // Deferred devices are tried again after a second (then two), not minutes.
                configuration.engineDeferredRetrySeconds = 1
                // The webhook receivers of the tests listen on loopback.
                configuration.webhookAllowPrivateAddresses = true
                adjust(&configuration)
                let logs = LogCapture()
                let store = try Store(configuration: configuration, logger: logs.logger())
                let frozen = configuration
                try await store.client.whileRunning {
                    let added = try await store.apps.add(
                        NewApp(
                            bundleID: bundleID, teamID: "TEAM123456", keyID: keyID, signingKeyPEM: key.pemRepresentation,
                            defaultEnvironment: .production,
                            apnsEndpoint: "https://\(simulator.host):\(simulator.port)", apnsCAPEM: simulator.caPEM),
                        actor: "test")
                    // Channel management on the simulator's own port, as Apple's is apart from pushes
                    // (set in SQL: an audited change would show in the tests that count the audit log).
                    let management = simulator.managementPort.map { "https://\(simulator.host):\($0)" }
                    try await store.client.query("UPDATE apps SET apns_management_endpoint = \(management) WHERE id = \(added.id)")
                    let app = try await store.apps.find(id: added.id) ?? added
                    for document in try TemplateLoader.load(directory: TestDatabase.repositoryRoot.appendingPathComponent("templates")) {
                        _ = try await store.templates.save(try CompiledTemplate(document), createdBy: "test")
                    }
                    try await body(
                        EngineHarness(
                            store: store, configuration: frozen, app: app, simulator: simulator, recordFile: recordFile,
                            logs: logs))
                }
            }
            try await simulator.shutdown()
        } catch {
            try? await simulator.shutdown()
            throw error
        }
    }

    /// Registers `count` devices (numbers `first ..< first + count`) in batches, described by `registration`.
    func register(_ numbers: Range<Int>, _ registration: (Int) throws -> DeviceRegistration) async throws {
        for start in stride(from: numbers.lowerBound, to: numbers.upperBound, by: 1000) {
            let items = try (start..<min(start + 1000, numbers.upperBound)).map {
                DeviceImportItem(token: Self.token($0), registration: try registration($0))
            }
            _ = try await store.devices.importBatch(appID: app.id, items: items)
        }
    }

    /// The engines a test written for both runs on (`CitusTestDatabase.engines`).
    static let engines = CitusTestDatabase.engines

    static func token(_ n: Int) -> DeviceToken {
        try! DeviceToken(hex: String(format: "%016llx%016llx", UInt64(n), UInt64(n) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// Creates and schedules a campaign for the app.
    func scheduledCampaign(
        template: String = "cart-reminder", mode: Campaign.LocalizationMode = .server, rateLimit: Int? = nil,
        variables: [String: PayloadValue] = ["storeName": "Acme"], variants: [CampaignVariant] = [],
        holdoutBasisPoints: Int = 0
    ) async throws -> Campaign {
        let draft = CampaignDraft(
            appID: app.id, name: "Test campaign", templateName: template, localization: mode, variables: variables,
            rateLimit: rateLimit, variants: variants, holdoutBasisPoints: holdoutBasisPoints)
        let created = try await store.campaigns.create(draft, actor: "test")
        return try #require(try await store.campaigns.transition(id: created.id, event: .schedule, actor: "test"))
    }

    /// Runs `body` with engines running (one per owner), then drains them as SIGTERM does.
    func withEngines<Result: Sendable>(
        owners: [String] = ["engine-1"], clock: @escaping @Sendable () -> Date = { Date() },
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        let services = owners.map {
            EngineService(configuration: configuration, store: store, logger: logs.logger(), owner: $0, clock: clock)
        }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            for service in services {
                group.addTask {
                    try await service.run()
                    return nil
                }
            }
            let result: Result
            do {
                result = try await body()
            } catch {
                // A failed body (a wait that timed out) must not hang the suite: the engines get
                // a minute to drain, then are cancelled, whatever a test's hung batch does.
                for service in services { service.drain() }
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    throw CancellationError()
                }
                do {
                    for _ in services.indices { _ = try await group.next() }
                } catch {}
                group.cancelAll()
                throw error
            }
            for service in services { service.drain() }
            try await group.waitForAll()
            return result
        }
    }

    /// Polls `condition` until it holds; records an issue and throws after `timeout`, a hang
    /// bound (the full suite loads both cores: a wait of seconds alone can take minutes there).
    func waitFor(
        _ what: String, timeout: Duration = .seconds(420), _ condition: @Sendable () async throws -> Bool
    ) async throws {
        var held = false
        try await waitUntil(what, limit: timeout) {
            held = try await condition()
            return held
        }
        if !held { throw CancellationError() }
    }

    /// Chunks of a campaign with a batch sent (or being sent) whose outcomes are not stored yet.
    func batchesInFlight(_ campaignID: Int64) async throws -> Int {
        let rows = try await store.client.query(
            "SELECT count(*)::int FROM campaign_chunks WHERE campaign_id = \(campaignID) AND in_flight_to IS NOT NULL")
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Chunks of the campaign a worker holds under a live lease now.
    func chunksHeld(_ campaignID: Int64) async throws -> Int {
        let rows = try await store.client.query(
            """
            SELECT count(*)::int FROM campaign_chunks
            WHERE campaign_id = \(campaignID) AND state = 'pending' AND lease_owner IS NOT NULL AND lease_expires_at > now()
            """)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    func campaign(_ id: Int64) async throws -> Campaign {
        try #require(try await store.campaigns.get(id: id))
    }

    /// Runs engines until the campaign completes (or is otherwise finished). The timeout is a
    /// bound against a hang, not a timing: a full suite on two cores has taken over two minutes.
    func runToEnd(
        _ campaign: Campaign, owners: [String] = ["engine-1"], timeout: Duration = .seconds(420)
    ) async throws
        -> Campaign
    {
        try await withEngines(owners: owners) {
            try await waitFor("the campaign to finish", timeout: timeout) { try await self.campaign(campaign.id).state.isFinished }
        }
        return try await self.campaign(campaign.id)
    }

    /// Every row has one device (the primary key says so); this checks the ledger against
    /// the counters and the simulator: nothing lost, nothing counted or accepted twice.
    func expectConsistent(_ campaign: Campaign, devices: Int) async throws {
        let rows = try await deliveries(campaign.id)
        let counters = campaign.counters
        #expect(counters.audienceSize == devices)
        #expect(
            counters.accepted + counters.failed + counters.skipped + counters.deferred + counters.unsent + counters.pending
                == counters.audienceSize)
        #expect(rows.values.filter { $0.outcome == "accepted" }.count == counters.accepted)
        #expect(rows.values.filter { $0.outcome == "deferred" }.count == counters.deferred)
        #expect(rows.values.filter { $0.outcome == "failed" }.count == counters.failed)
        if campaign.state == .completed { #expect(rows.count == devices) }
        let received = try received()
        #expect(Set(received.map(\.apnsID)).count == received.count, "a notification was accepted twice")
        #expect(received.count == counters.accepted)
    }

    /// Every delivery row of the campaign: device ID → (outcome kind, status, reason, apns-id, language).
    func deliveries(_ campaignID: Int64) async throws -> [Int64: DeliveryRow] {
        let rows = try await store.client.query(
            """
            SELECT device_id, outcome, status, reason, apns_id, language FROM deliveries WHERE campaign_id = \(campaignID)
            """)
        var found = [Int64: DeliveryRow]()
        for try await (device, outcome, status, reason, apnsID, language)
            in rows.decode((Int64, String, Int32?, String?, UUID?, String?).self)
        {
            #expect(found[device] == nil, "device \(device) has two rows")
            found[device] = DeliveryRow(outcome: outcome, status: status.map(Int.init), reason: reason, apnsID: apnsID, language: language)
        }
        return found
    }

    /// Every delivery row's message: device ID → variant index (nil for the holdout).
    func variants(_ campaignID: Int64) async throws -> [Int64: Int?] {
        let rows = try await store.client.query("SELECT device_id, variant FROM deliveries WHERE campaign_id = \(campaignID)")
        var found = [Int64: Int?]()
        for try await (device, variant) in rows.decode((Int64, Int16?).self) { found[device] = .some(variant.map(Int.init)) }
        return found
    }

    /// The simulator's record: one entry per accepted notification, in arrival order.
    /// After a campaign that survived a fault (a killed instance, a stopped worker): every
    /// device has one accepted outcome and the counters match; the simulator saw every device,
    /// a device seen twice with the same apns-id and collapse ID both times, and at most
    /// `resentAtMost` of them (the batches in flight at the fault). Returns the twice-seen.
    @discardableResult
    func expectEachDeviceAcceptedOnce(
        _ campaign: Campaign, devices: Int, resentAtMost: Int
    ) async throws
        -> [[ReceivedNotification]]
    {
        let finished = try await self.campaign(campaign.id)
        let rows = try await deliveries(campaign.id)
        #expect(rows.count == devices)
        #expect(rows.values.allSatisfy { $0.outcome == "accepted" })
        #expect(finished.counters.accepted == devices && finished.counters.addsUp)
        var byToken = [String: [ReceivedNotification]]()
        for notification in try received() { byToken[notification.token, default: []].append(notification) }
        #expect(byToken.count == devices)
        let twice = byToken.values.filter { $0.count > 1 }
        #expect(twice.allSatisfy { $0.count == 2 })
        #expect(twice.allSatisfy { Set($0.map(\.apnsID)).count == 1 && Set($0.map(\.collapseID)).count == 1 })
        #expect(twice.count <= resentAtMost, "\(twice.count) devices were sent twice")
        return Array(twice)
    }

    func received() throws -> [ReceivedNotification] {
        try simulator.flushRecord()
        let text = try String(contentsOfFile: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let payload = try JSONSerialization.data(withJSONObject: try #require(object["payload"]), options: [.sortedKeys])
            return ReceivedNotification(
                token: try #require(object["token"] as? String), apnsID: try #require(object["apns-id"] as? String),
                collapseID: object["collapse-id"] as? String, payload: String(decoding: payload, as: UTF8.self),
                keyID: object["key-id"] as? String, certificateUID: object["certificate-uid"] as? String,
                topic: object["topic"] as? String, pushType: object["push-type"] as? String,
                priority: object["priority"] as? Int)
        }
    }
}

struct DeliveryRow: Equatable {
    var outcome: String
    var status: Int?
    var reason: String?
    var apnsID: UUID?
    var language: String?
}

struct ReceivedNotification {
    var token: String
    var apnsID: String
    var collapseID: String?
    /// The payload as JSON with sorted keys, to compare with an expected one.
    var payload: String
    /// The provider token's key ID.
    var keyID: String?
    /// The client certificate's UID (certificate authentication).
    var certificateUID: String?
    var topic: String? = nil
    var pushType: String? = nil
    var priority: Int? = nil

    static func normalized(_ bytes: [UInt8]) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
