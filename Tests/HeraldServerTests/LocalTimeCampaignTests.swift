import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldServer

/// Local-time campaigns and quiet hours on the real engine, PostgreSQL and simulator, with the
/// engine's clock injected: the test moves time forward zone by zone instead of waiting.
@Suite(.serialized) struct LocalTimeCampaignTests {
    /// Six zones (the last is devices without one, read in the app's default zone, London) and
    /// 10:00 on 28 March 2027, the day Europe moves its clocks forward: Berlin's 10:00 is 08:00
    /// UTC that day, not 09:00 as the day before.
    static let zones = ["Pacific/Auckland", "Asia/Tokyo", "Europe/Berlin", "", "America/New_York", "America/Los_Angeles"]
    static let moments = [
        "2027-03-27T21:00:00Z", "2027-03-28T01:00:00Z", "2027-03-28T08:00:00Z", "2027-03-28T09:00:00Z",
        "2027-03-28T14:00:00Z", "2027-03-28T17:00:00Z",
    ].map { ISO8601DateFormatter().date(from: $0)! }
    static let perZone = 30

    final class Clock: Sendable {
        private let now: Mutex<Date>
        init(_ start: Date) { now = Mutex(start) }
        func set(_ date: Date) { now.withLock { $0 = date } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static func register(_ h: EngineHarness, zones: [String]) async throws {
        try await h.register(0..<(zones.count * perZone)) { n in
            let zone = zones[n / perZone]
            return try DeviceRegistration(
                environment: .production, languages: ["en"],
                authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                timeZone: zone.isEmpty ? nil : zone, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
        }
    }

    /// The zone each received token belongs to.
    static func receivedZones(_ h: EngineHarness, zones: [String]) throws -> [String] {
        try h.received().map { notification in
            let n = Int(UInt64(notification.token.prefix(16), radix: 16)!)
            return zones[n / perZone]
        }
    }

    static func localCampaign(_ h: EngineHarness, latePolicy: LocalDelivery.LatePolicy = .send) async throws -> Campaign {
        let draft = CampaignDraft(
            appID: h.app.id, name: "Local 10:00", templateName: "cart-reminder", variables: ["storeName": "Acme"],
            localDelivery: LocalDelivery(date: "2027-03-28", time: "10:00", latePolicy: latePolicy))
        let created = try await h.store.campaigns.create(draft, actor: "test")
        return try #require(try await h.store.campaigns.transition(id: created.id, event: .schedule, actor: "test"))
    }

    @Test func eachZoneGetsItAtItsOwnTenOClockAcrossTheDaylightSavingChange() async throws {
        try await EngineHarness.with { h in
            try await Self.register(h, zones: Self.zones)
            _ = try await h.store.apps.updateSettings(
                appID: h.app.id, settings: AppSettings(defaultTimeZone: "Europe/London", quietHours: nil), actor: "test")
            let campaign = try await Self.localCampaign(h)
            #expect(campaign.sendAt == ISO8601DateFormatter().date(from: "2027-03-27T20:00:00Z"), "it starts with Kiribati's 10:00")
            let clock = Clock(ISO8601DateFormatter().date(from: "2027-03-27T12:00:00Z")!)
            try await h.withEngines(clock: clock.read) {
                // Before any zone's moment: started at Kiribati's 10:00, nothing sent.
                clock.set(ISO8601DateFormatter().date(from: "2027-03-27T20:30:00Z")!)
                try await h.waitFor("the campaign to start") { try await h.campaign(campaign.id).state == .running }
                let zones = try await h.campaign(campaign.id).counters.zones
                #expect(zones.map(\.timeZone) == Self.zones.sorted())
                #expect(zones.allSatisfy { $0.devices == Self.perZone && $0.done == 0 })
                #expect(zones.first { $0.timeZone.isEmpty }?.effectiveTimeZone == "Europe/London")
                for (index, moment) in Self.moments.enumerated() {
                    // A minute before the zone's moment, and a few polls later, it has not been sent.
                    clock.set(moment.addingTimeInterval(-60))
                    try await Task.sleep(for: .milliseconds(300))
                    let before = try Self.receivedZones(h, zones: Self.zones)
                    #expect(!before.contains(Self.zones[index]), "\(Self.zones[index]) was sent before its 10:00")
                    clock.set(moment)
                    try await h.waitFor("\(Self.zones[index]) at its 10:00") {
                        try Self.receivedZones(h, zones: Self.zones).count == (index + 1) * Self.perZone
                    }
                    let sent = try Self.receivedZones(h, zones: Self.zones)
                    #expect(Set(sent) == Set(Self.zones[...index]), "after \(Self.zones[index]): \(Set(sent))")
                }
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
            }
            let finished = try await h.campaign(campaign.id)
            #expect(finished.counters.accepted == Self.zones.count * Self.perZone && finished.counters.addsUp)
            #expect(finished.counters.zones.allSatisfy { $0.state == .done && $0.done == Self.perZone })
        }
    }

    @Test func aZoneWhoseMomentHadPassedWhenScheduledIsSkippedByItsPolicy() async throws {
        try await EngineHarness.with { h in
            try await Self.register(h, zones: Self.zones)
            let campaign = try await Self.localCampaign(h, latePolicy: .skip)
            // As if scheduled at 03:00 UTC: Auckland's and Tokyo's 10:00 had passed.
            try await h.store.client.query(
                "UPDATE campaigns SET scheduled_at = '2027-03-28T03:00:00Z', send_at = '2027-03-28T03:00:00Z' WHERE id = \(campaign.id)")
            let clock = Clock(ISO8601DateFormatter().date(from: "2027-03-28T03:00:00Z")!)
            try await h.withEngines(clock: clock.read) {
                try await h.waitFor("the late zones to be skipped") {
                    try await h.campaign(campaign.id).counters.skipped == 2 * Self.perZone
                }
                #expect(try h.received().isEmpty)
                clock.set(ISO8601DateFormatter().date(from: "2027-03-28T18:00:00Z")!)
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
            }
            let rows = try await h.deliveries(campaign.id)
            #expect(rows.values.filter { $0.reason == "localTimePassed" }.count == 2 * Self.perZone)
            let sent = try Self.receivedZones(h, zones: Self.zones)
            #expect(Set(sent) == Set(Self.zones[2...]) && sent.count == 4 * Self.perZone)
        }
    }

    @Test func quietHoursHoldAZoneUntilTheyEndOrSkipIt() async throws {
        let zones = ["Asia/Tokyo", "Europe/Berlin"]
        try await EngineHarness.with { h in
            try await Self.register(h, zones: zones)
            let night = try QuietHours.parse("21:00-08:00").get()
            _ = try await h.store.apps.updateSettings(
                appID: h.app.id, settings: AppSettings(defaultTimeZone: nil, quietHours: night), actor: "test")
            // 14:30 UTC: 23:30 in Tokyo (quiet), 16:30 in Berlin.
            let clock = Clock(ISO8601DateFormatter().date(from: "2027-03-28T14:30:00Z")!)
            let held = try await h.scheduledCampaign()
            try await h.withEngines(clock: clock.read) {
                // Tokyo's chunk learns its quiet hours when a worker first takes it, which on a
                // busy machine may come after Berlin is done.
                try await h.waitFor("Berlin to be sent and Tokyo to wait") {
                    let counters = try await h.campaign(held.id).counters
                    return counters.accepted == Self.perZone
                        && counters.zones.first { $0.timeZone == "Asia/Tokyo" }?.state == .waiting
                }
                let waiting = try #require(try await h.campaign(held.id).counters.zones.first { $0.timeZone == "Asia/Tokyo" })
                #expect(waiting.state == .waiting && waiting.done == 0)
                #expect(waiting.notBefore == ISO8601DateFormatter().date(from: "2027-03-28T23:00:00Z"), "08:00 in Tokyo")
                #expect(Set(try Self.receivedZones(h, zones: zones)) == ["Europe/Berlin"])
                clock.set(ISO8601DateFormatter().date(from: "2027-03-28T23:00:00Z")!)
                try await h.waitFor("Tokyo after its quiet hours") { try await h.campaign(held.id).state == .completed }
            }
            #expect(try await h.campaign(held.id).counters.accepted == 2 * Self.perZone)

            // Skipping instead: Tokyo's devices are recorded skipped with reason quietHours.
            let draft = CampaignDraft(
                appID: h.app.id, name: "Skip", templateName: "cart-reminder", variables: ["storeName": "Acme"],
                quietHoursMode: .skip)
            let created = try await h.store.campaigns.create(draft, actor: "test")
            let skipping = try #require(try await h.store.campaigns.transition(id: created.id, event: .schedule, actor: "test"))
            clock.set(ISO8601DateFormatter().date(from: "2027-03-28T14:30:00Z")!)
            let finished = try await h.withEngines(clock: clock.read) { () async throws -> Campaign in
                try await h.waitFor("the skipping campaign to complete") { try await h.campaign(skipping.id).state == .completed }
                return try await h.campaign(skipping.id)
            }
            #expect(finished.counters.accepted == Self.perZone && finished.counters.skipped == Self.perZone)
            let rows = try await h.deliveries(skipping.id)
            #expect(rows.values.filter { $0.reason == "quietHours" }.count == Self.perZone)
            // A campaign that ignores quiet hours is sent as one, not in zones.
            let ignoring = try await h.store.campaigns.create(
                CampaignDraft(appID: h.app.id, name: "Ignore", templateName: "cart-reminder", quietHoursMode: .ignore),
                actor: "test")
            let scheduled = try #require(try await h.store.campaigns.transition(id: ignoring.id, event: .schedule, actor: "test"))
            let done = try await h.runToEnd(scheduled)
            #expect(done.counters.zones.isEmpty && done.counters.accepted == 2 * Self.perZone)
        }
    }

    /// Each bad local-time setting is a 422 naming its field, with nothing stored.
    @Test func badLocalTimesAreRefusedByField() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let base = #""app": "com.example.herald", "name": "Local", "templateName": "cart-reminder""#
                let cases: [(String, String)] = [
                    (#""delivery": {"mode": "localTime", "date": "2027-03-28", "time": "9:00"}"#, "delivery.time"),
                    (#""delivery": {"mode": "localTime", "date": "2027-03-28", "time": "24:00"}"#, "delivery.time"),
                    (#""delivery": {"mode": "localTime", "date": "2027-02-30", "time": "10:00"}"#, "delivery.date"),
                    (#""delivery": {"mode": "localTime", "date": "2999-01-01", "time": "10:00"}"#, "delivery.date"),
                    (#""delivery": {"mode": "localTime", "time": "10:00"}"#, "delivery.date"),
                    (#""delivery": {"mode": "localTime", "date": "2027-03-28", "time": "10:00", "latePolicy": "maybe"}"#, "delivery.latePolicy"),
                    (#""delivery": {"mode": "tomorrow"}"#, "delivery.mode"),
                    (#""delivery": {"mode": "now", "time": "10:00"}"#, "delivery.time"),
                    (#""delivery": {"mode": "localTime", "date": "2027-03-28", "time": "10:00"}, "sendAt": "2027-03-28T10:00:00Z""#, "sendAt"),
                    (#""quietHours": "sometimes""#, "quietHours"),
                ]
                let before = try await h.store.client.query("SELECT count(*) FROM campaigns").collect().first!.decode(Int64.self)
                for (fields, field) in cases {
                    let reply = try await api.request(.post, "/v1/campaigns", key: api.marketingKey, body: "{\(base), \(fields)}")
                    #expect(reply.status == .unprocessableContent, "\(fields): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(fields): \(reply.body)")
                }
                #expect(try await h.store.client.query("SELECT count(*) FROM campaigns").collect().first!.decode(Int64.self) == before)
                // A moment that has passed in every zone cannot be scheduled.
                let past = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{\#(base), "delivery": {"mode": "localTime", "date": "2026-01-05", "time": "10:00"}}"#)
                let id = try #require(past.json["id"] as? String)
                let refused = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(refused.status == .unprocessableContent && refused.json["field"] as? String == "delivery.date")
                // A draft given sendAt while it has a local time is refused, unchanged.
                let local = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{\#(base), "delivery": {"mode": "localTime", "date": "2027-03-28", "time": "10:00"}}"#)
                let localID = try #require(local.json["id"] as? String)
                #expect((local.json["delivery"] as? [String: Any])?["mode"] as? String == "localTime")
                let clash = try await api.request(
                    .patch, "/v1/campaigns/\(localID)", key: api.marketingKey, body: #"{"sendAt": "2027-03-28T10:00:00Z"}"#)
                #expect(clash.status == .unprocessableContent && clash.json["field"] as? String == "sendAt", "\(clash.body)")
                let back = try await api.request(
                    .patch, "/v1/campaigns/\(localID)", key: api.marketingKey,
                    body: #"{"delivery": {"mode": "now"}, "sendAt": "2027-03-28T10:00:00Z"}"#)
                #expect(back.status == .ok && (back.json["delivery"] as? [String: Any])?["mode"] as? String == "now", "\(back.body)")
            }
            // App settings from the CLI: one line and a non-zero exit for each bad value.
            let cli = CLITests()
            for (arguments, message) in [
                (["--quiet-hours", "21:00-21:00"], "start and end must differ"),
                (["--quiet-hours", "9pm-8am"], "HH:MM-HH:MM"),
                (["--default-time-zone", "Mars/Olympus"], "not an IANA time zone"),
                ([String](), "give --default-time-zone"),
            ] {
                let run = try await cli.herald(["apps", "set", EngineHarness.bundleID] + arguments, database: h.configuration.databaseURL)
                #expect(run.status != 0 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            }
            let set = try await cli.herald(
                ["apps", "set", EngineHarness.bundleID, "--default-time-zone", "Europe/Paris", "--quiet-hours", "22:00-07:30"],
                database: h.configuration.databaseURL)
            #expect(set.status == 0 && set.stdout.contains("default time zone Europe/Paris, quiet hours 22:00-07:30"), "\(set.stderr)")
            let app = try #require(try await h.store.apps.find(id: h.app.id))
            #expect(app.quietHours == QuietHours(start: 22 * 60, end: 7 * 60 + 30) && app.defaultTimeZone == "Europe/Paris")
        }
    }
}
