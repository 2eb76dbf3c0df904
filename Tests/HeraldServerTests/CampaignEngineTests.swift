import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTemplates
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// The delivery engine end to end: real PostgreSQL, the APNs simulator over TLS HTTP/2, the
/// engine as `herald serve` runs it.
@Suite(.serialized) struct CampaignEngineTests {
    /// Eight preference lists and the sample language each negotiates to.
    static let languages: [([String], String)] = [
        (["en-US"], "en"), (["de-AT", "en"], "de"), (["fr-CA"], "fr"), (["ja-JP"], "ja"), (["zh-TW"], "zh-Hant"),
        (["pt-BR"], "pt-BR"), (["es-MX"], "es-419"), (["ar-EG"], "ar"),
    ]

    static func recipient(_ n: Int) -> Recipient {
        let alertsDenied = n % 10 == 0
        let authorization = AuthorizationSettings(
            status: alertsDenied ? .denied : .authorized, alert: !alertsDenied, badge: n % 2 == 0, sound: n % 3 != 0)
        var attributes: [String: PayloadValue] = ["cartItemCount": .int(n % 7 + 1)]
        if n % 25 != 1 { attributes["firstName"] = .string("Ana \(n) \"Z\"") }
        return Recipient(
            languages: languages[n % languages.count].0.compactMap { LanguageTag($0) }, authorization: authorization,
            userID: "user-\(n)", attributes: attributes)
    }

    static func registration(_ n: Int) throws -> DeviceRegistration {
        let recipient = recipient(n)
        return try DeviceRegistration(
            environment: .production, languages: recipient.languages.map(\.value), authorization: recipient.authorization,
            timeZone: nil, userID: recipient.userID, attributes: recipient.attributes)
    }

    /// Device ID by token hex.
    static func deviceIDs(_ harness: EngineHarness) async throws -> [String: Int64] {
        let rows = try await harness.store.client.query("SELECT id, encode(token, 'hex') FROM devices")
        var ids = [String: Int64]()
        for try await (id, token) in rows.decode((Int64, String).self) { ids[token] = id }
        return ids
    }

    /// On one PostgreSQL, and on the Citus cluster when there is one (docs/scaling.md).
    @Test(arguments: EngineHarness.engines)
    func tenThousandDevicesInEightLanguagesGetExactlyOneOutcomeEach(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { harness in
            let count = 10_000
            try await harness.register(0..<count, Self.registration)
            let scheduled = try await harness.scheduledCampaign()
            let campaign = try await harness.runToEnd(scheduled)
            #expect(campaign.state == .completed)

            let deliveries = try await harness.deliveries(campaign.id)
            #expect(deliveries.count == count)
            let ids = try await Self.deviceIDs(harness)
            // Every row, sent or skipped, lies in its device's part (docs/scaling.md, "Parts").
            let misplaced = try await harness.store.client.query(
                """
                SELECT count(*) FROM deliveries l WHERE l.campaign_id = \(campaign.id) AND NOT EXISTS (
                    SELECT 1 FROM devices d WHERE d.app_id = l.app_id AND d.id = l.device_id AND d.part = l.part)
                """
            ).collect().first!.decode(Int64.self)
            #expect(misplaced == 0)
            let template = try CompiledTemplate(
                try #require(try await harness.store.templates.latest(name: "cart-reminder")).templateDocument())
            let options = RenderOptions(campaign: campaign)
            var expected = (accepted: 0, notAuthorized: 0, missingArgument: 0)
            var payloads = [String: String]()
            for n in 0..<count {
                let token = EngineHarness.token(n).hex
                let id = try #require(ids[token])
                let row = try #require(deliveries[id])
                switch template.render(for: Self.recipient(n), options: options) {
                case .payload(let rendered):
                    expected.accepted += 1
                    #expect(row.outcome == "accepted" && row.status == 200)
                    #expect(row.apnsID == campaign.apnsID(forDevice: id))
                    #expect(row.language == Self.languages[n % Self.languages.count].1)
                    payloads[token] = try ReceivedNotification.normalized(rendered.encoded)
                case .skipped(.notAuthorized):
                    expected.notAuthorized += 1
                    #expect(row == DeliveryRow(outcome: "skipped", reason: "notAuthorized"))
                case .skipped(.missingArgument):
                    expected.missingArgument += 1
                    #expect(row == DeliveryRow(outcome: "skipped", reason: "missingArgument"))
                case .failed(let error):
                    Issue.record("device \(n) does not render: \(error)")
                }
            }
            #expect(expected.accepted == 8_600)
            #expect(expected.notAuthorized == 1_000)
            #expect(expected.missingArgument == 400)

            // What APNs got: each accepted device once, with the campaign's apns-id, collapse ID
            // and the payload in its language.
            let received = try harness.received()
            #expect(received.count == expected.accepted)
            #expect(Set(received.map(\.token)).count == received.count)
            for notification in received {
                let id = try #require(ids[notification.token])
                #expect(notification.apnsID == campaign.apnsID(forDevice: id).canonicalString)
                #expect(notification.collapseID == campaign.collapseID)
                #expect(notification.payload == payloads[notification.token])
            }

            let counters = campaign.counters
            #expect(counters.audienceSize == count)
            #expect(counters.accepted == expected.accepted)
            #expect(counters.skipped == expected.notAuthorized + expected.missingArgument)
            #expect(counters.failed == 0 && counters.pending == 0 && counters.unsent == 0)
            #expect(
                counters.accepted + counters.failed + counters.skipped + counters.deferred + counters.unsent
                    + counters.pending == counters.audienceSize)
        }
    }

    @Test func unregisteredTokensAreInvalidatedOnlyWhenNotRegisteredSince() async throws {
        let now = Date()
        // 0..<5: 410 stamped after their registration → invalidated. 5..<10: 410 stamped an
        // hour before it (they registered again since) → kept. 10..<12: BadDeviceToken.
        var fault = SimulatorFaultScript()
        for n in 0..<5 { fault.unregistered[EngineHarness.token(n).hex] = now.addingTimeInterval(3600) }
        for n in 5..<10 { fault.unregistered[EngineHarness.token(n).hex] = now.addingTimeInterval(-3600) }
        fault.badDeviceTokens = [EngineHarness.token(10).hex, EngineHarness.token(11).hex]
        try await EngineHarness.with(fault: fault) { harness in
            try await harness.register(0..<40) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let campaign = try await harness.runToEnd(try await harness.scheduledCampaign())
            #expect(campaign.state == .completed)
            #expect(campaign.counters.accepted == 28)
            #expect(campaign.counters.failed == 12)
            #expect(campaign.counters.failedByReason == ["Unregistered": 10, "BadDeviceToken": 2])
            #expect(campaign.counters.invalidated == 7)

            func device(_ n: Int) async throws -> Device {
                try #require(try await harness.store.devices.find(appID: harness.app.id, token: EngineHarness.token(n)))
            }
            for n in 0..<5 {
                let unregistered = try await device(n)
                #expect(unregistered.invalidationReason == "Unregistered")
                #expect(unregistered.invalidatedAt != nil)
            }
            for n in 5..<10 { #expect(try await device(n).invalidatedAt == nil) }
            for n in 10..<12 { #expect(try await device(n).invalidationReason == "BadDeviceToken") }
            for n in 12..<40 { #expect(try await device(n).invalidatedAt == nil) }

            // Registering an invalidated token again revives it.
            _ = try await harness.store.devices.register(
                appID: harness.app.id, token: EngineHarness.token(0),
                registration: try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: [:]))
            #expect(try await device(0).invalidatedAt == nil)
        }
    }
}

/// Pause, resume, cancel, faults and several instances: no device lost, none counted twice.
@Suite(.serialized) struct CampaignControlTests {
    static func register(_ harness: EngineHarness, _ count: Int) async throws {
        try await harness.register(0..<count) { n in
            try DeviceRegistration(
                environment: .production, languages: ["en"],
                authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                timeZone: nil, userID: nil, attributes: ["firstName": .string("Ana \(n)"), "cartItemCount": 1])
        }
    }

    @Test func pauseStopsSendingAndResumeFinishesTheRest() async throws {
        try await EngineHarness.with { harness in
            try await Self.register(harness, 2_000)
            let campaign = try await harness.scheduledCampaign(rateLimit: 800)
            try await harness.withEngines {
                try await harness.waitFor("300 accepted") { try await harness.campaign(campaign.id).counters.accepted >= 300 }
                _ = try await harness.store.campaigns.transition(id: campaign.id, event: .pause, actor: "test")
                // In-flight batches finish and are recorded (however long that takes on a loaded
                // machine) and every chunk is given back: no worker holds one, and none can be
                // claimed while the campaign is paused, so nothing moves.
                try await harness.waitFor("every chunk to be given back") {
                    let inFlight = try await harness.batchesInFlight(campaign.id)
                    let held = try await harness.chunksHeld(campaign.id)
                    return inFlight == 0 && held == 0
                }
                let paused = try await harness.campaign(campaign.id)
                #expect(paused.state == .paused)
                #expect(paused.counters.pending > 0)
                #expect(try harness.received().count == paused.counters.accepted)
                _ = try await harness.store.campaigns.transition(id: campaign.id, event: .resume, actor: "test")
                try await harness.waitFor("completion") { try await harness.campaign(campaign.id).state == .completed }
            }
            let finished = try await harness.campaign(campaign.id)
            #expect(finished.counters.accepted == 2_000)
            try await harness.expectConsistent(finished, devices: 2_000)
        }
    }

    @Test func cancelStopsSendingAndCountsTheRestUnsent() async throws {
        try await EngineHarness.with { harness in
            try await Self.register(harness, 2_000)
            let campaign = try await harness.scheduledCampaign(rateLimit: 800)
            try await harness.withEngines {
                try await harness.waitFor("300 accepted") { try await harness.campaign(campaign.id).counters.accepted >= 300 }
                _ = try await harness.store.campaigns.transition(id: campaign.id, event: .cancel, actor: "test")
                try await harness.waitFor("every chunk to be given back") {
                    let inFlight = try await harness.batchesInFlight(campaign.id)
                    let held = try await harness.chunksHeld(campaign.id)
                    return inFlight == 0 && held == 0
                }
                // No worker holds a chunk and none can claim one of a cancelled campaign: what
                // the simulator received is what the ledger recorded.
                let recorded = try await harness.campaign(campaign.id).counters.accepted
                #expect(try harness.received().count == recorded)
            }
            let cancelled = try await harness.campaign(campaign.id)
            #expect(cancelled.state == .cancelled)
            #expect(cancelled.counters.unsent > 0)
            #expect(cancelled.counters.pending == 0)
            try await harness.expectConsistent(cancelled, devices: 2_000)
        }
    }

    @Test func faultsLoseNothingAndSendNothingTwice() async throws {
        let fault = SimulatorFaultScript(
            tooManyRequestsFraction: 0.03, internalErrorFraction: 0.05, serviceUnavailableFraction: 0.02,
            goAwayAfterRequests: 700)
        try await EngineHarness.with(fault: fault) { harness in
            try await Self.register(harness, 3_000)
            let campaign = try await harness.runToEnd(try await harness.scheduledCampaign())
            #expect(campaign.state == .completed)
            // The 429s were tried again: some rows took more than one attempt.
            let retried = try await harness.store.client.query(
                "SELECT count(*) FROM deliveries WHERE campaign_id = \(campaign.id) AND attempts > 1"
            ).collect().first!.decode(Int64.self)
            #expect(retried > 0)
            #expect(campaign.counters.accepted > 2_700)
            try await harness.expectConsistent(campaign, devices: 3_000)
        }
    }

    @Test func twoInstancesShareOneCampaign() async throws {
        try await EngineHarness.with(adjust: { $0.engineWorkers = 2 }) { harness in
            try await Self.register(harness, 4_000)
            let campaign = try await harness.runToEnd(
                try await harness.scheduledCampaign(), owners: ["instance-a", "instance-b"])
            #expect(campaign.state == .completed)
            #expect(campaign.counters.accepted == 4_000)
            let rows = try await harness.store.client.query(
                "SELECT DISTINCT lease_owner FROM campaign_chunks WHERE campaign_id = \(campaign.id)")
            var owners = Set<String>()
            for try await owner in rows.decode(String.self) { owners.insert(owner) }
            #expect(owners == ["instance-a", "instance-b"])
            try await harness.expectConsistent(campaign, devices: 4_000)
        }
    }

    /// A campaign stored before header values were checked (here, written by hand) with CR/LF
    /// in its collapse ID fails when it starts, naming the field, instead of spending its whole
    /// audience on refusals.
    @Test func aCampaignWithABadHeaderValueFailsInsteadOfSpendingItsAudience() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<20, CampaignEngineTests.registration)
            let campaign = try await h.scheduledCampaign()
            try await h.store.client.query(
                """
                UPDATE campaigns SET push_options = jsonb_set(push_options, '{collapseID}', to_jsonb(E'sale\\r\\nX: 1'::text))
                WHERE id = \(campaign.id)
                """)
            let finished = try await h.runToEnd(campaign)
            #expect(finished.state == .failed)
            #expect(finished.failureReason?.contains("pushOptions.collapseID") == true, "\(finished.failureReason ?? "")")
            #expect(finished.counters.accepted == 0 && finished.counters.failed == 0)
            #expect(try h.received().isEmpty)
        }
    }

    /// APNs's 410 timestamps, one for each millisecond of a second: each is stored, shown by the
    /// API and written into webhook messages exactly as APNs sent it (a Double of seconds lost
    /// one about a quarter of the time, `…36.001` becoming `…36.000`).
    @Test func every410TimestampKeepsItsMillisecond() async throws {
        let second = (Int64(Date().timeIntervalSince1970) + 3600) * 1000
        var fault = SimulatorFaultScript()
        for n in 0..<1000 {
            fault.unregistered[EngineHarness.token(n).hex] = Date(timeIntervalSince1970: Double(second + Int64(n)) / 1000)
        }
        try await EngineHarness.with(fault: fault) { h in
            try await h.register(0..<1000) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            try await h.withAPI { api in
                let reply = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/webhooks", key: api.adminKey,
                    body: #"{"url": "http://127.0.0.1:9/hook", "events": ["device.invalidated"]}"#)
                #expect(reply.status == .created, "\(reply.body)")
            }
            let finished = try await h.runToEnd(try await h.scheduledCampaign())
            #expect(finished.counters.invalidated == 1000)
            let expected = Dictionary(
                uniqueKeysWithValues: (0..<1000).map {
                    (EngineHarness.token($0).hex, APNSTimestamp(milliseconds: second + Int64($0)).rfc3339)
                })
            // Stored.
            let stored = try await h.store.client.query(
                "SELECT encode(token, 'hex'), (extract(epoch FROM apns_unregistered_at) * 1000)::bigint FROM devices"
            ).collect().map { try $0.decode((String, Int64).self) }
            #expect(stored.count == 1000)
            #expect(stored.allSatisfy { APNSTimestamp(milliseconds: $0.1).rfc3339 == expected[$0.0] })
            // In webhook messages.
            let messages = try await h.store.client.query(
                "SELECT data ->> 'token', data ->> 'apnsTimestamp' FROM webhook_messages"
            ).collect().map { try $0.decode((String, String).self) }
            #expect(messages.count == 1000)
            #expect(messages.allSatisfy { expected[$0.0] == $0.1 }, "\(messages.filter { expected[$0.0] != $0.1 }.prefix(3))")
            // Through the API (the response shows the token's last 8 digits).
            let bySuffix = Dictionary(uniqueKeysWithValues: expected.map { (String($0.key.suffix(8)), $0.value) })
            try await h.withAPI { api in
                var seen = 0
                var cursor: String?
                repeat {
                    let page = try await api.request(
                        .get, "/v1/apps/\(EngineHarness.bundleID)/devices?valid=false&limit=500" + (cursor.map { "&cursor=\($0)" } ?? ""),
                        key: api.adminKey)
                    for device in page.json["devices"] as? [[String: Any]] ?? [] {
                        let suffix = try #require(device["tokenSuffix"] as? String)
                        #expect(device["apnsUnregisteredAt"] as? String == bySuffix[suffix], "\(suffix)")
                        seen += 1
                    }
                    cursor = page.json["nextCursor"] as? String
                } while cursor != nil
                #expect(seen == 1000)
            }
        }
    }
}
