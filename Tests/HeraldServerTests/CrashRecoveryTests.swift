import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// docs/rules.md rule 2 against the real binary: `kill -9` of a `herald serve` in mid-campaign,
/// then a new one: the campaign completes, every device has exactly one outcome row, and
/// the only devices APNs saw twice are those of the batches in flight, with the same apns-id.
@Suite(.serialized) struct CrashRecoveryTests {
    static let devices = 6_000
    static let batchSize = 200
    static let workers = 4

    /// Starts `herald serve` on the harness's database with a short lease; `settings` adds or
    /// overrides environment keys (a journey test's engine sizes).
    static func serve(_ h: EngineHarness, settings: [String: String] = [:]) throws -> Process {
        var all = [
            "HERALD_SECRET_KEY": h.configuration.secretKey ?? "", "HERALD_ENGINE_LEASE_SECONDS": "2", "HERALD_ENGINE_POLL_MS": "50",
            "HERALD_ENGINE_WORKERS": String(workers), "HERALD_ENGINE_BATCH_SIZE": String(batchSize), "HERALD_LOG_LEVEL": "error",
        ]
        all.merge(settings) { $1 }
        // Its standard error is kept, under its process ID once it runs, for `running(_:)`.
        let starting = FileManager.default.temporaryDirectory.appendingPathComponent("herald-serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: starting.path, contents: nil)
        let process = try ServeTests.serve(
            database: h.configuration.databaseURL ?? "", port: try ServeTests.freePort(), settings: all, stderrFile: starting)
        try? FileManager.default.moveItem(at: starting, to: log(of: process))
        return process
    }

    static func log(of process: Process) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-serve-\(process.processIdentifier).log")
    }

    /// Throws, with the end of its standard error, when an instance the test still needs has
    /// exited: a wait on its work then fails at once instead of running into its hang bound.
    static func running(_ process: Process) throws {
        guard !process.isRunning else { return }
        let output = (try? String(contentsOf: log(of: process), encoding: .utf8)) ?? ""
        throw ServeExited(status: process.terminationStatus, output: String(output.suffix(2_000)))
    }

    func recorded(_ h: EngineHarness, _ campaign: Campaign) async throws -> Int {
        let rows = try await h.store.client.query("SELECT count(*) FROM deliveries WHERE campaign_id = \(campaign.id)").collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    @Test(arguments: EngineHarness.engines)
    func aKilledInstanceLosesNothingAndResendsOnlyTheBatchInFlightWithTheSameID(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<Self.devices) { n in
                try DeviceRegistration(
                    environment: .production, languages: [["de"], ["ja"], ["pt-BR"]][n % 3],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let campaign = try await h.scheduledCampaign()

            let first = try Self.serve(h)
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
            try await h.waitFor("the first instance to record some outcomes", timeout: .seconds(420)) {
                try Self.running(first)
                return try await recorded(h, campaign) >= 1_000
            }
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(first.terminationReason == .uncaughtSignal)
            let atCrash = try await recorded(h, campaign)
            #expect(atCrash < Self.devices, "the campaign finished before the kill; the test proves nothing")
            #expect(try await h.campaign(campaign.id).state == .running)

            let second = try Self.serve(h)
            defer {
                if second.isRunning {
                    kill(second.processIdentifier, SIGTERM)
                    second.waitUntilExit()
                }
            }
            // A bound against a hang, not a timing: a loaded machine took over two minutes once.
            try await h.waitFor("the campaign to complete after the restart", timeout: .seconds(420)) {
                try await h.campaign(campaign.id).state == .completed
            }
            // Every device one outcome; a device seen twice only with the same apns-id and
            // collapse ID, and no more of them than the batches in flight.
            let twice = try await h.expectEachDeviceAcceptedOnce(
                campaign, devices: Self.devices, resentAtMost: Self.workers * Self.batchSize)
            for copies in twice {
                let token = try DeviceToken(hex: copies[0].token)
                let device = try #require(try await h.store.devices.find(appID: h.app.id, token: token))
                #expect(copies[0].apnsID == campaign.apnsID(forDevice: device.id).canonicalString)
            }
        }
    }

    /// An A/B campaign with a holdout killed mid-run and finished by two new instances: every
    /// device keeps the message (or the holdout) its apns-id gives it, a resent device gets
    /// the same payload again, and no held-out device is ever sent to.
    @Test func variantAssignmentSurvivesAKillAndTwoNewInstances() async throws {
        try await EngineHarness.with { h in
            let devices = 4_000
            try await h.register(0..<devices) { n in
                try DeviceRegistration(
                    environment: .production, languages: [["en"], ["fr"]][n % 2],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let campaign = try await h.scheduledCampaign(
                variants: [
                    CampaignVariant(name: "A", variables: ["storeName": "Alpha"]),
                    CampaignVariant(name: "B", variables: ["storeName": "Bravo"], weight: 2),
                ],
                holdoutBasisPoints: 1500)

            let first = try Self.serve(h)
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
            try await h.waitFor("the first instance to record some outcomes", timeout: .seconds(420)) {
                try Self.running(first)
                return try await recorded(h, campaign) >= 800
            }
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(try await recorded(h, campaign) < devices, "the campaign finished before the kill; the test proves nothing")

            let second = try Self.serve(h)
            let third = try Self.serve(h)
            defer {
                for process in [second, third] where process.isRunning {
                    kill(process.processIdentifier, SIGTERM)
                    process.waitUntilExit()
                }
            }
            // A bound against a hang, not a timing: a loaded machine took over two minutes once.
            try await h.waitFor("the campaign to complete after the restart", timeout: .seconds(420)) {
                try await h.campaign(campaign.id).state == .completed
            }
            let finished = try await h.campaign(campaign.id)
            let rows = try await h.deliveries(campaign.id)
            let variants = try await h.variants(campaign.id)
            #expect(rows.count == devices && finished.counters.addsUp)
            var expected = [Int64: AudienceSplit.Assignment]()
            for device in rows.keys {
                let assignment = finished.split.assignment(apnsID: finished.apnsID(forDevice: device))
                expected[device] = assignment
                let stored = try #require(variants[device])
                switch assignment {
                case .heldOut: #expect(rows[device]?.outcome == "heldOut" && stored == nil)
                case .variant(let index): #expect(rows[device]?.outcome == "accepted" && stored == index)
                }
            }
            let heldOut = expected.values.filter { $0 == .heldOut }.count
            #expect(finished.counters.heldOut == heldOut && heldOut > 0)

            let ids = try await CampaignEngineTests.deviceIDs(h)
            var payloads = [String: Set<String>]()
            for notification in try h.received() { payloads[notification.token, default: []].insert(notification.payload) }
            #expect(payloads.count == devices - heldOut, "every device not held out got its notification, and no other")
            for (token, seen) in payloads {
                let device = try #require(ids[token])
                #expect(seen.count == 1, "a resent device got a different payload")
                let store = expected[device] == .variant(0) ? "Alpha" : "Bravo"
                #expect(seen.allSatisfy { $0.contains(store) })
            }
        }
    }
}

/// A `herald serve` a test started exited before the test was done with it.
struct ServeExited: Error, CustomStringConvertible {
    var status: Int32
    var output: String
    var description: String { "herald serve exited with status \(status); its standard error ended:\n\(output)" }
}
