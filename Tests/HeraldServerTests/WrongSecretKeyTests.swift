import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldServer

/// An instance given another `HERALD_SECRET_KEY` than the one that sealed the stored secrets:
/// it does not start, seals nothing, names what it cannot open, and work it cannot do is left
/// for an instance that can, without spending an attempt or burning a poll loop.
@Suite struct WrongSecretKeyTests {
    let cli = CLITests()
    static let right = Data(repeating: 1, count: 32).base64EncodedString()
    static let wrong = Data(repeating: 2, count: 32).base64EncodedString()

    @Test func serveRefusesToStartAndTheCLIRefusesToSealNamingWhatTheKeyCannotOpen() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await cli.addApp(url)  // sealed with `right`
            let port = try ServeTests.freePort()
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID()).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            let process = try ServeTests.serve(
                database: url, port: port, settings: ["HERALD_SECRET_KEY": Self.wrong, "HERALD_LOG_LEVEL": "error"], stderrFile: log)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await waitUntil("serve to stop", limit: .seconds(60)) { !process.isRunning }
            try #require(!process.isRunning)
            #expect(process.terminationStatus != 0)
            let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(logged.contains("does not open 1 of the 1 stored secrets (credential 1 of com.example.cli)"), "\(logged)")
            #expect(!logged.contains(Self.wrong) && !logged.contains(Self.right))

            // Nothing new is sealed with it, and the refusal names the row.
            let newKey = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID()).p8").path
            try TestSigningKey.pem().write(toFile: newKey, atomically: true, encoding: .utf8)
            let add = try await cli.herald(
                ["apps", "credentials", "add", "com.example.cli", "--key-id", "KEY2345678", "--key-file", newKey],
                database: url, extraEnvironment: ["HERALD_SECRET_KEY": Self.wrong])
            #expect(add.status != 0 && add.stderr.contains("credential 1 of com.example.cli"), "\(add.stderr)")
            #expect(add.stderr.split(separator: "\n").count == 1, "\(add.stderr)")
            let webhook = try await cli.herald(
                ["webhooks", "add", "--app", "com.example.cli", "--url", "https://backend.example.com/hook"], database: url,
                extraEnvironment: ["HERALD_SECRET_KEY": Self.wrong])
            #expect(webhook.status != 0 && webhook.stderr.contains("credential 1 of com.example.cli"), "\(webhook.stderr)")
            let stored = try await TestDatabase.withClient(url) { client in
                try await client.query("SELECT (SELECT count(*) FROM app_credentials) + (SELECT count(*) FROM webhook_endpoints)")
                    .collect().first?.decode(Int64.self)
            }
            #expect(stored == 1)

            // Rotation without the old key names the row it cannot open, and changes nothing.
            let rotate = try await cli.herald(["secrets", "rotate"], database: url, extraEnvironment: ["HERALD_SECRET_KEY": Self.wrong])
            #expect(rotate.status != 0 && rotate.stderr.contains("credential 1 of com.example.cli"), "\(rotate.stderr)")
            #expect(rotate.stderr.contains("nothing was changed"))

            // With the right key it starts.
            let good = try ServeTests.serve(
                database: url, port: port, settings: ["HERALD_SECRET_KEY": Self.right, "HERALD_ENGINE_ENABLED": "false"])
            defer { if good.isRunning { good.terminate() } }
            try await AppChangeAcrossInstancesTests.waitUntilReady(port: port)
        }
    }

    /// A webhook message whose endpoint this instance cannot sign for is given back untouched:
    /// no attempt spent, no failure recorded.
    @Test func aWebhookMessageThisInstanceCannotSignIsGivenBackWithoutSpendingAnAttempt() async throws {
        try await TestDatabase.withDatabase { url in
            try await TestDatabase.withClient(url) { client in
                let logger = TestDatabase.logger
                let sealer = PostgresWebhookStore(client: client, vault: try SigningKeyVault(base64Secret: Self.right), logger: logger)
                let endpoint = try await sealer.addEndpoint(
                    appID: nil, try NewWebhookEndpoint(url: "https://backend.example.com/hook", events: ["device.invalidated"], description: nil),
                    actor: "test")
                _ = try await client.query(
                    """
                    INSERT INTO webhook_messages (endpoint_id, type, data)
                    VALUES (\(endpoint.endpoint.id), 'device.invalidated', '{"app": "com.example.cli"}')
                    """
                ).collect()
                let other = PostgresWebhookStore(client: client, vault: try SigningKeyVault(base64Secret: Self.wrong), logger: logger)
                #expect(try await other.claim(limit: 10, perEndpoint: 10, skipping: [], lease: .seconds(30)).isEmpty)
                let (attempts, state, later) = try #require(
                    try await client.query(
                        "SELECT attempts, state, next_attempt_at > now() + interval '30 seconds' FROM webhook_messages"
                    ).collect().first?.decode((Int32, String, Bool).self))
                #expect(attempts == 0 && state == "pending" && later)
                // The instance with the right key delivers it once it is due.
                _ = try await client.query("UPDATE webhook_messages SET next_attempt_at = now()").collect()
                let claimed = try await sealer.claim(limit: 10, perEndpoint: 10, skipping: [], lease: .seconds(30))
                #expect(claimed.count == 1 && claimed.first?.attempt == 1 && claimed.first?.secret.hasPrefix("whsec_") == true)
            }
        }
    }

    /// An engine that cannot open the app's credential gives its chunks back and leaves the app
    /// to others instead of taking them back every poll; an engine with the right key sends.
    @Test func anEngineThatCannotOpenTheCredentialLeavesTheCampaignToOneThatCan() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<40, CampaignEngineTests.registration)
            let campaign = try await h.scheduledCampaign()
            var configuration = h.configuration
            configuration.secretKey = Self.wrong
            let wrong = configuration
            let logs = LogCapture()
            try await Store.with(wrong, logger: logs.logger()) { store in
                let engine = EngineService(configuration: wrong, store: store, logger: logs.logger(), owner: "wrong-key")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await engine.run() }
                    try await h.waitFor("the wrong engine to give a chunk back", timeout: .seconds(180)) {
                        logs.text.contains("cannot open the app's credential")
                    }
                    // A second at 50 ms polls: one refusal, not twenty.
                    try await Task.sleep(for: .seconds(1))
                    #expect(logs.text.components(separatedBy: "cannot open the app's credential").count - 1 == 1)
                    #expect(try await h.campaign(campaign.id).counters.accepted == 0)
                    // Every worker that had claimed a chunk gives it back (on a loaded machine, not
                    // necessarily within that second).
                    try await h.waitFor("the wrong engine to give every chunk back", timeout: .seconds(180)) {
                        try await h.store.client.query(
                            "SELECT count(*) FROM campaign_chunks WHERE lease_owner = 'wrong-key' AND lease_expires_at > now()"
                        ).collect().first?.decode(Int64.self) == 0
                    }
                    let finished = try await h.runToEnd(campaign)
                    #expect(finished.state == .completed && finished.counters.failed == 0)
                    engine.drain()
                    try await group.waitForAll()
                }
            }
            #expect(!logs.text.contains(Self.wrong) && !logs.text.contains(Self.right))
        }
    }
}
