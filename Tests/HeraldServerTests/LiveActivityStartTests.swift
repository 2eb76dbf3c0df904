import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import PostgresNIO
import Testing

@testable import HeraldServer

/// Starting a Live Activity on an audience: a campaign whose push type is `liveactivity` goes to
/// the devices holding a start token of its attributes type (and to no other), as a start push
/// with the template's text as its alert in each device's language; the update tokens the
/// devices then send join the campaign's activity, and updates by its ID reach them.
@Suite(.serialized)
struct LiveActivityStartTests {
    static let bundle = EngineHarness.bundleID
    static let languages = ["en", "de", "fr", "ja"]

    static func startToken(_ n: Int) -> DeviceToken { EngineHarness.token(2_000_000 + n) }

    /// Devices `numbers`, each with a start token of `type` when `holds` says so (in one statement).
    static func registerDevices(_ h: EngineHarness, _ numbers: Range<Int>, type: String, holds: (Int) -> Bool) async throws {
        try await h.register(numbers) { n in
            try DeviceRegistration(
                environment: .production, languages: [languages[n % languages.count]], authorization: .notDetermined,
                timeZone: nil, userID: nil, attributes: [:])
        }
        let holders = numbers.filter(holds)
        try await h.store.client.query(
            """
            INSERT INTO live_activity_start_tokens (app_id, device_id, part, attributes_type, token)
            SELECT d.app_id, d.id, d.part, \(type), t.start FROM devices d
            JOIN unnest(\(holders.map { ByteBuffer(bytes: EngineHarness.token($0).bytes) })::bytea[],
                        \(holders.map { ByteBuffer(bytes: startToken($0).bytes) })::bytea[]) AS t(device, start)
              ON d.token = t.device
            WHERE d.app_id = \(h.app.id)
            """)
    }

    static func campaign(type: String, activity: String) -> String {
        """
        {"app": "\(bundle)", "name": "Deliveries today", "templateName": "order-on-its-way", "variables": {"storeName": "Acme", "minutes": 25},
         "pushOptions": {"pushType": "liveactivity", "liveActivity": {
            "attributesType": "\(type)", "activityID": "\(activity)",
            "attributes": {"orderID": "8812"}, "contentState": {"status": "preparing", "minutes": 25},
            "relevanceScore": 50}}}
        """
    }

    @Test func aStartCampaignReachesEveryStartTokenOfItsTypeAndTheirUpdateTokensJoinItsActivity() async throws {
        // The start tokens of devices 0, 2 … 8 answer 410 after their registration: dropped, their devices stay valid.
        var fault = SimulatorFaultScript()
        for n in stride(from: 0, to: 10, by: 2) { fault.unregistered[Self.startToken(n).hex] = Date().addingTimeInterval(3600) }
        try await EngineHarness.with(fault: fault) { h in
            try await Self.registerDevices(h, 0..<2000, type: "DeliveryAttributes") { $0 % 2 == 0 }
            try await h.withAPI(engine: true) { api in
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey, body: Self.campaign(type: "DeliveryAttributes", activity: "deliveries-1"))
                #expect(created.status == .created, "\(created.body)")
                // The audience shown is the caller's filter, not Herald's narrowing to start-token holders.
                #expect((created.json["audience"] as? [String: Any])?["startTokenType"] == nil, "\(created.body)")
                let id = try #require(created.json["id"] as? String)
                let scheduled = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(scheduled.status == .ok, "\(scheduled.body)")
                try await h.waitFor("the campaign to complete") {
                    try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String == "completed"
                }
                let publicID = try #require(UUID(uuidString: id))
                let campaign = try #require(try await h.store.campaigns.get(publicID: publicID))
                #expect(campaign.counters.audienceSize == 1000 && campaign.counters.accepted == 995, "\(campaign.counters)")
                #expect(campaign.counters.failed == 5)

                let starts = try h.received().filter { $0.pushType == "liveactivity" }
                #expect(starts.count == 995)
                let holders = Set((0..<2000).filter { $0 % 2 == 0 }.map { Self.startToken($0).hex })
                #expect(starts.allSatisfy { holders.contains($0.token) }, "a start went to a device token or a non-holder")
                #expect(starts.allSatisfy { $0.topic == "\(Self.bundle).push-type.liveactivity" && $0.priority == 10 })
                // The start's aps, with the template's text in the device's language as its alert.
                let byToken = Dictionary(starts.map { ($0.token, $0.payload) }, uniquingKeysWith: { first, _ in first })
                let german = try #require(byToken[Self.startToken(10).hex])  // device 10: languages[10 % 4] = fr
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(german.utf8)) as? [String: Any])
                let aps = try #require(payload["aps"] as? [String: Any])
                #expect(aps["event"] as? String == "start" && aps["attributes-type"] as? String == "DeliveryAttributes")
                #expect((aps["attributes"] as? [String: Any])?["orderID"] as? String == "8812")
                #expect((aps["content-state"] as? [String: Any])?["status"] as? String == "preparing")
                #expect(aps["input-push-token"] as? Int == 1 && aps["relevance-score"] as? Double == 50)
                let alert = try #require(aps["alert"] as? [String: Any])
                #expect(alert["title"] as? String == "Votre commande Acme est en route", "\(alert)")
                #expect((alert["body"] as? String)?.contains("25") == true && alert["sound"] as? String == "default")

                // The 410s dropped the start tokens, not the devices.
                let left = try await h.store.client.query(
                    "SELECT count(*) FROM live_activity_start_tokens WHERE app_id = \(h.app.id)"
                ).collect()
                #expect(try left.first?.decode(Int64.self) == 995)
                let invalid = try await h.store.client.query(
                    "SELECT count(*) FROM devices WHERE invalidated_at IS NOT NULL"
                ).collect()
                #expect(try invalid.first?.decode(Int64.self) == 0)

                // Each started device sends its update token by attributes type: it joins the
                // campaign's activity without the app knowing its ID.
                for n in stride(from: 10, to: 2000, by: 2) {
                    let reply = try await api.request(
                        .put, "/v1/apps/\(Self.bundle)/devices/\(EngineHarness.token(n).hex)/update-tokens/DeliveryAttributes",
                        key: api.appKey, body: #"{"token": "\#(EngineHarness.token(3_000_000 + n).hex)"}"#)
                    #expect(reply.status == .created && reply.json["activityID"] as? String == "deliveries-1", "\(reply.body)")
                }
                let notStarted = try await api.request(
                    .put, "/v1/apps/\(Self.bundle)/devices/\(EngineHarness.token(1).hex)/update-tokens/DeliveryAttributes",
                    key: api.appKey, body: #"{"token": "\#(EngineHarness.token(3_000_001).hex)"}"#)
                #expect(notStarted.status == .notFound && notStarted.problemSlug == "no-started-activity")
                let activity = try await api.request(.get, "/v1/apps/\(Self.bundle)/live-activities/deliveries-1", key: api.appKey)
                #expect(activity.json["tokens"] as? Int == 995 && activity.json["attributesType"] as? String == "DeliveryAttributes")
                let end = try await api.request(
                    .post, "/v1/apps/\(Self.bundle)/live-activities/deliveries-1/updates", key: api.appKey,
                    body: #"{"event": "end", "contentState": {"status": "delivered", "minutes": 0}}"#)
                #expect(end.status == .accepted)
                let endID = try #require(end.json["id"] as? String)
                try await h.waitFor("the end to be sent") {
                    try await api.request(
                        .get, "/v1/apps/\(Self.bundle)/live-activities/deliveries-1/updates/\(endID)", key: api.appKey
                    ).json["accepted"] as? Int == 995
                }
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func anAttributesTypeNoDeviceHoldsIsRefusedAtScheduling(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await Self.registerDevices(h, 0..<10, type: "DeliveryAttributes") { _ in true }
            try await h.withAPI(engine: false) { api in
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey, body: Self.campaign(type: "DeliveryAtributes", activity: "typo-1"))
                #expect(created.status == .created, "\(created.body)")
                let id = try #require(created.json["id"] as? String)
                let scheduled = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(scheduled.status == .unprocessableContent, "\(scheduled.body)")
                #expect(scheduled.json["field"] as? String == "pushOptions.liveActivity.attributesType")
                #expect((scheduled.json["detail"] as? String)?.contains("DeliveryAtributes") == true)
                #expect(try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String == "draft")
                let activities = try await h.store.client.query("SELECT count(*) FROM live_activities").collect()
                #expect(try activities.first?.decode(Int64.self) == 0)
                // Bad start settings are refused when the campaign is made, naming the field.
                let bad: [(String, String)] = [
                    (#""liveActivity": {"attributesType": "2Bad", "activityID": "x"}"#, "pushOptions.liveActivity.attributesType"),
                    (#""liveActivity": {"attributesType": "A", "activityID": "a\u0001b"}"#, "pushOptions.liveActivity.activityID"),
                    (#""liveActivity": {"attributesType": "A", "activityID": "x", "colour": 1}"#, "pushOptions.liveActivity.colour"),
                    (
                        #""liveActivity": {"attributesType": "A", "activityID": "x", "inputPushChannel": "no!"}"#,
                        "pushOptions.liveActivity.inputPushChannel"
                    ),
                    (#""liveActivity": {"attributesType": "A", "activityID": "x", "contentState": "on"}"#, "pushOptions.liveActivity.contentState"),
                ]
                for (start, field) in bad {
                    let body =
                        #"{"app": "\#(Self.bundle)", "name": "x", "templateName": "order-on-its-way", "pushOptions": {"pushType": "liveactivity", \#(start)}}"#
                    let reply = try await api.request(.post, "/v1/campaigns", key: api.marketingKey, body: body)
                    #expect(reply.status == .unprocessableContent, "\(start): \(reply.body)")
                    let named = reply.json["field"] as? String ?? (reply.json["errors"] as? [[String: Any]])?.first?["field"] as? String
                    #expect(named == field, "\(start): \(reply.body)")
                }
                let missing = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{"app": "\#(Self.bundle)", "name": "x", "templateName": "order-on-its-way", "pushOptions": {"pushType": "liveactivity"}}"#
                )
                #expect(missing.status == .unprocessableContent, "\(missing.body)")
            }
        }
    }
}
