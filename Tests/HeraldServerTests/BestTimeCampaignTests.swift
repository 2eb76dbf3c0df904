import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import NIOCore
import Testing

@testable import HeraldServer

/// Best-time delivery on real PostgreSQL (docs/campaigns.md "Best time"): each device's hour is
/// learned from its opens in its own zone, the fixed-time group goes at the window's start, and
/// the report compares the two.
@Suite(.serialized)
struct BestTimeCampaignTests {
    static let zones = ["Europe/Paris", "America/New_York"]
    static let perZone = 30

    static func at(_ text: String) -> Date { RFC3339.parse(text)! }

    static func register(_ h: EngineHarness) async throws {
        try await h.register(0..<(zones.count * perZone)) { n in
            try DeviceRegistration(
                environment: .production, languages: ["en"],
                authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                timeZone: zones[n / perZone], userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
        }
    }

    /// `count` opens by device `n`, on the last days, at `hour`:`minute` in its zone.
    static func opens(_ h: EngineHarness, device n: Int, count: Int, hour: Int, minute: Int = 15) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zones[n / perZone])!
        for day in 1...count {
            let date = calendar.date(byAdding: .day, value: -day, to: Date())!
            let moment = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: date)!
            try await h.store.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, apns_id, device_id)
                SELECT app_id, 'opened', sha256(convert_to(\("\(n)-\(day)-\(hour)"), 'UTF8')), \(moment), gen_random_uuid(), id
                FROM devices WHERE app_id = \(h.app.id) AND token = \(ByteBuffer(bytes: EngineHarness.token(n).bytes))
                """)
        }
    }

    /// Each device's chunk: the moment it is sent at and its hour after the window's start.
    static func plan(_ h: EngineHarness, _ campaign: Campaign) async throws -> [String: (notBefore: Date, offset: Int)] {
        let started = try #require(try await h.store.campaigns.get(id: campaign.id))
        var plan = [String: (Date, Int)]()
        while let lease = try await h.store.campaignWork.claimChunk(
            owner: "test", leaseDuration: .seconds(3600), now: Self.at("2027-03-12T00:00:00Z"), excludingApps: [])
        {
            let row = try #require(
                try await h.store.client.query(
                    "SELECT not_before, send_offset FROM campaign_chunks WHERE campaign_id = \(campaign.id) AND chunk = \(Int32(lease.chunk))"
                ).collect().first)
            let (notBefore, offset) = try row.decode((Date, Int16).self)
            #expect(lease.sendSlot?.offset == Int(offset))
            for device in try await h.store.campaignWork.nextDevices(lease, filter: started.audience, after: 0, limit: 1000) {
                #expect(plan[device.token.hex] == nil, "a device in two chunks")
                plan[device.token.hex] = (notBefore, Int(offset))
            }
        }
        return plan
    }

    static func bestTimeCampaign(_ h: EngineHarness, holdoutPercent: Double) async throws -> Campaign {
        let draft = CampaignDraft(
            appID: h.app.id, name: "Best time", templateName: "cart-reminder", variables: ["storeName": "Acme"],
            localDelivery: LocalDelivery(
                date: "2027-03-10", time: "08:00",
                bestTime: BestTimeWindow(windowHours: 12, holdoutBasisPoints: Int(holdoutPercent * 100))))
        let created = try await h.store.campaigns.create(draft, actor: "test")
        _ = try await h.store.campaigns.transition(id: created.id, event: .schedule, actor: "test")
        let started = try await h.store.campaignWork.startDueCampaigns(limit: 8, actor: "test", now: Self.at("2027-03-11T00:00:00Z"))
        #expect(started.count == 1)
        return created
    }

    @Test func eachDeviceGetsItAtItsOwnBestHourInItsZone() async throws {
        try await EngineHarness.with { h in
            try await Self.register(h)
            try await Self.opens(h, device: 0, count: 5, hour: 19)  // Paris, evenings
            try await Self.opens(h, device: 30, count: 4, hour: 9)  // New York, mornings
            for n in 1...10 { try await Self.opens(h, device: n, count: 2, hour: 12, minute: 30) }  // the app's noon
            let campaign = try await Self.bestTimeCampaign(h, holdoutPercent: 0)
            let plan = try await Self.plan(h, campaign)
            #expect(plan.count == Self.zones.count * Self.perZone)
            // 10 March 2027: Paris is UTC+1, New York UTC-5 (both before their clock changes).
            #expect(plan[EngineHarness.token(0).hex]?.notBefore == Self.at("2027-03-10T18:00:00Z"))
            #expect(plan[EngineHarness.token(0).hex]?.offset == 11)
            #expect(plan[EngineHarness.token(30).hex]?.notBefore == Self.at("2027-03-10T14:00:00Z"))
            // Devices without opens: the app's most popular hour, noon, in their own zone.
            #expect(plan[EngineHarness.token(20).hex]?.notBefore == Self.at("2027-03-10T11:00:00Z"))
            #expect(plan[EngineHarness.token(45).hex]?.notBefore == Self.at("2027-03-10T17:00:00Z"))
            #expect(Set(plan.values.map(\.offset)) == [1, 4, 11])
            let stored = try await h.store.client.query(
                "SELECT count(*) FROM campaign_send_offsets WHERE campaign_id = \(campaign.id)"
            ).collect().first?.decode(Int64.self)
            #expect(stored == 2, "only the devices whose hour is not the default are kept")
            _ = try await h.store.campaigns.transition(id: campaign.id, event: .cancel, actor: "test")
            let left = try await h.store.client.query(
                "SELECT count(*) FROM campaign_send_offsets WHERE campaign_id = \(campaign.id)"
            ).collect().first?.decode(Int64.self)
            #expect(left == 0, "a finished campaign's hours are deleted")
        }
    }

    @Test func theFixedTimeGroupGoesAtTheWindowsStartAndTheReportComparesTheGroups() async throws {
        try await EngineHarness.with { h in
            try await Self.register(h)
            for n in 0..<(Self.zones.count * Self.perZone) { try await Self.opens(h, device: n, count: 2, hour: 18) }
            let campaign = try await Self.bestTimeCampaign(h, holdoutPercent: 50)
            let plan = try await Self.plan(h, campaign)
            let fixed = Set(
                try await h.store.client.query(
                    """
                    SELECT encode(token, 'hex') FROM devices
                    WHERE app_id = \(h.app.id) AND (hashint8extended(id, \(campaign.id)) & 9223372036854775807) % 10000 < 5000
                    """
                ).collect().map { try $0.decode(String.self) })
            #expect(!fixed.isEmpty && fixed.count < plan.count, "both groups have devices: \(fixed.count)")
            for (token, slot) in plan {
                #expect(slot.offset == (fixed.contains(token) ? 0 : 10), "\(token)")
            }
            // Send it (every zone's hour has come on the engine's clock), then let only the best-time group open it.
            try await h.store.client.query(
                "UPDATE campaign_chunks SET lease_expires_at = NULL WHERE campaign_id = \(campaign.id)")
            try await h.withEngines(clock: { Self.at("2027-03-12T00:00:00Z") }) {
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
            }
            try await h.store.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, apns_id, device_id, campaign_id, variant)
                SELECT d.app_id, 'opened', sha256(convert_to('report-' || d.device_id, 'UTF8')), now(), d.apns_id, d.device_id,
                       d.campaign_id, 0
                FROM deliveries d
                WHERE d.campaign_id = \(campaign.id) AND (hashint8extended(d.device_id, \(campaign.id)) & 9223372036854775807) % 10000 >= 5000
                """)
            try await h.withAPI { api in
                let id = try await h.campaign(campaign.id).publicID.canonicalString
                let report = try await api.request(.get, "/v1/campaigns/\(id)/report", key: api.marketingKey)
                #expect(report.status == .ok, "\(report.body)")
                let timing = try #require(report.json["timing"] as? [[String: Any]], "\(report.body)")
                #expect(timing.map { $0["name"] as? String } == ["bestTime", "fixedTime"])
                #expect(timing.first?["assigned"] as? Int == plan.count - fixed.count)
                #expect(timing.last?["assigned"] as? Int == fixed.count)
                let opened = timing.map { ($0["opened"] as? [String: Any])?["rate"] as? Double }
                #expect(opened == [1, 0], "\(report.body)")
                let comparisons = try #require(report.json["comparisons"] as? [[String: Any]])
                let lift = try #require(comparisons.first { $0["a"] as? String == "bestTime" && $0["metric"] as? String == "openRate" })
                #expect(lift["b"] as? String == "fixedTime" && lift["significant"] as? Bool == true, "\(lift)")
                let shown = try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey)
                let delivery = try #require(shown.json["delivery"] as? [String: Any])
                #expect(delivery["mode"] as? String == "bestTime" && delivery["windowHours"] as? Int == 12)
                #expect(delivery["bestTimeHoldoutPercent"] as? Double == 50)
            }
        }
    }

    @Test func badBestTimeDeliveriesAreRefusedNamingTheField() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let cases: [(String, String)] = [
                    (#"{"mode": "bestTime", "date": "2027-03-10", "windowHours": 0}"#, "delivery.windowHours"),
                    (#"{"mode": "bestTime", "date": "2027-03-10", "windowHours": 25}"#, "delivery.windowHours"),
                    (#"{"mode": "bestTime", "date": "2027-03-10"}"#, "delivery.windowHours"),
                    (#"{"mode": "bestTime", "date": "2027-03-10", "windowHours": 1.5}"#, "delivery.windowHours"),
                    (
                        #"{"mode": "bestTime", "date": "2027-03-10", "windowHours": 8, "bestTimeHoldoutPercent": 51}"#,
                        "delivery.bestTimeHoldoutPercent"
                    ),
                    (#"{"mode": "bestTime", "date": "2027-02-30", "windowHours": 8}"#, "delivery.date"),
                    (#"{"mode": "bestTime", "date": "2027-03-10", "time": "7am", "windowHours": 8}"#, "delivery.time"),
                    (#"{"mode": "bestTime", "date": "2027-03-10", "windowHours": 8, "hour": 3}"#, "delivery.hour"),
                ]
                for (delivery, field) in cases {
                    let reply = try await api.request(
                        .post, "/v1/campaigns", key: api.marketingKey,
                        body: """
                            {"app": "\(EngineHarness.bundleID)", "name": "Bad", "templateName": "cart-reminder", "delivery": \(delivery)}
                            """)
                    #expect(reply.status == .unprocessableContent, "\(delivery): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(delivery): \(reply.body)")
                }
                let stored = try await h.store.client.query("SELECT count(*) FROM campaigns").collect().first?.decode(Int64.self)
                #expect(stored == 0)
            }
        }
    }
}
