import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// Transactional sends and campaign test sends through the real application, PostgreSQL and
/// the APNs simulator over TLS.
@Suite struct NotificationAPITests {
    static let path = "/v1/apps/\(EngineHarness.bundleID)/notifications"

    static func german(_ n: Int) throws -> DeviceRegistration {
        try DeviceRegistration(
            environment: .production, languages: ["de-AT", "en"],
            authorization: AuthorizationSettings(status: .authorized, alert: true, badge: false, sound: true),
            timeZone: "Europe/Vienna", userID: n < 2 ? "user-1" : "user-\(n)", attributes: ["firstName": "Lena"])
    }

    static func count(_ h: EngineHarness, _ table: String) async throws -> Int {
        let rows = try await h.store.client.query("SELECT count(*) FROM \(unescaped: table)").collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    @Test(arguments: CitusTestDatabase.engines) func aTemplateGoesToEachTokenInItsLanguageAndIsRecorded(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<2, Self.german)
            let unknown = EngineHarness.token(99).hex
            try await h.withAPI { api in
                let reply = try await api.request(
                    .post, Self.path, key: api.appKey,
                    body: """
                        {"tokens": ["\(EngineHarness.token(0).hex)", "\(unknown)", "\(EngineHarness.token(0).hex)"],
                         "template": {"name": "welcome", "variables": {"appName": "Acme"}},
                         "pushOptions": {"collapseID": "hello"}}
                        """)
                #expect(reply.status == .ok, "\(reply.body)")
                // Tokens appear only as their last 8 hex digits; a repeated token is sent once.
                #expect(!reply.body.contains(EngineHarness.token(0).hex) && !reply.body.contains(unknown))
                let results = try #require(reply.json["results"] as? [[String: Any]])
                #expect(results.count == 2)
                #expect(results.map { $0["outcome"] as? String } == ["accepted", "skipped"])
                // An unregistered token has no attributes: welcome's first name is missing.
                #expect((results[1]["reason"] as? String)?.hasPrefix("missingArgument") == true)
                #expect(results[0]["language"] as? String == "de")
                #expect(results[0]["deviceID"] != nil && results[1]["deviceID"] == nil)
                #expect(results[0]["tokenSuffix"] as? String == String(EngineHarness.token(0).hex.suffix(8)))
                #expect((reply.json["summary"] as? [String: Int]) == ["accepted": 1, "skipped": 1])
                let requestID = try #require(reply.json["requestID"] as? String)

                // An unregistered token gets the template's default language.
                let sale = try await api.request(
                    .post, Self.path, key: api.appKey,
                    body: #"{"tokens": ["\#(unknown)"], "template": {"name": "flash-sale", "variables": {"percentOff": 30, "endTime": "midnight"}}}"#)
                let saleResults = try #require(sale.json["results"] as? [[String: Any]])
                #expect(saleResults.first?["outcome"] as? String == "accepted", "\(sale.body)")
                #expect(saleResults.first?["language"] as? String == "en")

                let received = try h.received()
                #expect(received.count == 2)
                let german = try #require(received.first { $0.token == EngineHarness.token(0).hex })
                #expect(german.payload.contains("Willkommen bei Acme") && german.payload.contains("Hallo Lena"))
                // The device turned badges off: no badge, although the template sets one.
                #expect(!german.payload.contains("badge") && german.payload.contains("sound"))
                #expect(german.collapseID == "hello")
                #expect(german.apnsID == results[0]["apnsID"] as? String)
                let english = try #require(received.first { $0.token == unknown })
                #expect(english.payload.contains("Flash sale: 30% off"))

                let rows = try await h.store.client.query(
                    "SELECT count(*) FROM notifications WHERE request_id = \(UUID(uuidString: requestID)!) "
                ).collect()
                #expect(try rows.first!.decode(Int64.self) == 2)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aUserIDReachesItsValidDevicesAndARawPayloadIsShaped(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<3, Self.german)
            // Device 1 of user-1 is dead: not sent to.
            let dead = try #require(try await h.store.devices.find(appID: h.app.id, token: EngineHarness.token(1)))
            try await h.store.client.query(
                "UPDATE devices SET invalidated_at = now(), invalidation_reason = 'Unregistered' WHERE id = \(dead.id)")
            try await h.withAPI { api in
                let reply = try await api.request(
                    .post, Self.path, key: api.marketingKey,
                    body:
                        #"{"userID": "user-1", "payload": {"aps": {"alert": {"title": "Order shipped"}, "badge": 3, "sound": "ping.caf"}, "orderID": 7}}"#
                )
                #expect(reply.status == .ok, "\(reply.body)")
                let results = try #require(reply.json["results"] as? [[String: Any]])
                #expect(results.count == 1 && results[0]["outcome"] as? String == "accepted")
                let received = try h.received()
                #expect(received.map(\.token) == [EngineHarness.token(0).hex])
                #expect(received[0].payload == #"{"aps":{"alert":{"title":"Order shipped"},"sound":"ping.caf"},"orderID":7}"#)
            }
        }
    }

    @Test func unregisteredAnswersInvalidateByTimestamp() async throws {
        var fault = SimulatorFaultScript()
        let now = Date()
        fault.unregistered[EngineHarness.token(0).hex] = now.addingTimeInterval(3600)
        fault.unregistered[EngineHarness.token(1).hex] = now.addingTimeInterval(-3600)
        fault.badDeviceTokens = [EngineHarness.token(2).hex]
        try await EngineHarness.with(fault: fault) { h in
            try await h.register(0..<3, Self.german)
            try await h.withAPI { api in
                let tokens = (0..<3).map { "\"\(EngineHarness.token($0).hex)\"" }.joined(separator: ",")
                let reply = try await api.request(
                    .post, Self.path, key: api.adminKey,
                    body: #"{"tokens": [\#(tokens)], "payload": {"aps": {"alert": "Hi"}}}"#)
                let results = try #require(reply.json["results"] as? [[String: Any]])
                #expect(results.map { $0["status"] as? Int } == [410, 410, 400])
                #expect(results.map { $0["reason"] as? String } == ["Unregistered", "Unregistered", "BadDeviceToken"])
                // Token 1 registered after APNs's timestamp: it stays valid.
                #expect(results.map { $0["invalidated"] as? Bool } == [true, false, true])
                for (n, valid) in [(0, false), (1, true), (2, false)] {
                    let device = try #require(try await h.store.devices.find(appID: h.app.id, token: EngineHarness.token(n)))
                    #expect(device.isValid == valid, "device \(n)")
                }
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badSendsNameTheirFieldAndSendNothing(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<1, Self.german)
            let token = EngineHarness.token(0).hex
            try await h.withAPI { api in
                let cases: [(String, String)] = [
                    (#"{"template": {"name": "welcome"}}"#, "tokens"),
                    (#"{"tokens": ["\#(token)"], "userID": "u", "template": {"name": "welcome"}}"#, "tokens"),
                    (#"{"tokens": [], "template": {"name": "welcome"}}"#, "tokens"),
                    (#"{"tokens": ["\#(token)", "xyz"], "template": {"name": "welcome"}}"#, "tokens[1]"),
                    (#"{"tokens": ["\#(token)"]}"#, "template"),
                    (#"{"tokens": ["\#(token)"], "template": {"name": "nope"}}"#, "template.name"),
                    (#"{"tokens": ["\#(token)"], "template": {"name": "welcome", "version": 9}}"#, "template.version"),
                    (#"{"tokens": ["\#(token)"], "template": {"name": "welcome", "lang": "de"}}"#, "template.lang"),
                    (#"{"tokens": ["\#(token)"], "payload": {"aps": {"badge": "x"}}}"#, "payload.aps.badge"),
                    (#"{"tokens": ["\#(token)"], "payload": {}}"#, "payload"),
                    (
                        #"{"tokens": ["\#(token)"], "payload": {"aps": {"alert": "x"}}, "pushOptions": {"pushType": "background", "priority": 10}}"#,
                        "pushOptions.priority"
                    ),
                    (#"{"tokens": ["\#(token)"], "payload": {"aps": {"alert": "x"}}, "environment": "dev"}"#, "environment"),
                    (#"{"tokens": ["\#(token)"], "payload": {"aps": {"alert": "x"}}, "priority": 5}"#, "priority"),
                    (
                        #"{"tokens": ["\#(token)"], "payload": {"aps": {"alert": "x"}}, "pushOptions": {"collapseID": "a\r\nb"}}"#,
                        "pushOptions.collapseID"
                    ),
                ]
                for (body, field) in cases {
                    let reply = try await api.request(.post, Self.path, key: api.adminKey, body: body)
                    #expect(
                        reply.status == .unprocessableContent && reply.json["field"] as? String == field,
                        "\(body): \(reply.body)")
                }
                let otherApp = try await api.request(
                    .post, "/v1/apps/com.example.nope/notifications", key: api.adminKey,
                    body: #"{"tokens": ["\#(token)"], "payload": {"aps": {"alert": "x"}}}"#)
                #expect(otherApp.status == .notFound && otherApp.problemSlug == "unknown-app")
            }
            #expect(try await Self.count(h, "notifications") == 0)
            #expect(try h.received().isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func anAppKeySendsOnlyForItsOwnApp(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            let other = try await h.store.apps.add(APIHarness.newApp("com.example.other"), actor: "test")
            let otherKey = try await h.store.keys.create(role: .app, appID: other.id, name: nil, actor: "test").1
            try await h.withAPI { api in
                let reply = try await api.request(
                    .post, Self.path, key: otherKey.value,
                    body: #"{"tokens": ["\#(EngineHarness.token(0).hex)"], "payload": {"aps": {"alert": "x"}}}"#)
                #expect(reply.status == .forbidden && reply.problemSlug == "forbidden")
            }
            #expect(try h.received().isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aCampaignTestSendIsRecordedApart(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<1, Self.german)
            try await h.withAPI { api in
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "name": "Welcome", "templateName": "welcome", "variables": {"appName": "Acme"}}"#)
                let id = try #require(created.json["id"] as? String)
                let reply = try await api.request(
                    .post, "/v1/campaigns/\(id)/test", key: api.marketingKey,
                    body: #"{"tokens": ["\#(EngineHarness.token(0).hex)", "\#(EngineHarness.token(5).hex)"]}"#)
                #expect(reply.status == .ok, "\(reply.body)")
                let results = try #require(reply.json["results"] as? [[String: Any]])
                // The unregistered token has no first name for welcome: skipped, and recorded too.
                #expect(results.map { $0["outcome"] as? String } == ["accepted", "skipped"])
                #expect(reply.json["requestID"] == nil)
                let bad = try await api.request(.post, "/v1/campaigns/\(id)/test", key: api.marketingKey, body: #"{"tokens": "x"}"#)
                #expect(bad.status == .unprocessableContent && bad.json["field"] as? String == "tokens")
                let forbidden = try await api.request(
                    .post, "/v1/campaigns/\(id)/test", key: api.appKey, body: #"{"tokens": ["\#(EngineHarness.token(0).hex)"]}"#)
                #expect(forbidden.status == .forbidden)
                let shown = try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey)
                #expect((shown.json["counters"] as? [String: Any])?["accepted"] as? Int == 0)
                #expect(shown.json["state"] as? String == "draft")
            }
            #expect(try await Self.count(h, "test_deliveries") == 2)
            #expect(try await Self.count(h, "deliveries") == 0)
            #expect(try h.received().count == 1)
        }
    }

    /// The whole path through the API with the engine running inside it: create, schedule,
    /// watch the counters, read the ledger page by page.
    @Test(arguments: CitusTestDatabase.engines) func aCampaignRunsToTheEndThroughTheAPI(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<300, Self.german)
            try await h.withAPI(engine: true) { api in
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "name": "Welcome", "templateName": "welcome", "audience": {"languages": ["de"]}}"#)
                let id = try #require(created.json["id"] as? String)
                let scheduled = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(scheduled.status == .ok)
                try await h.waitFor("the campaign to complete") {
                    try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String
                        == "completed"
                }
                let shown = try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey)
                let counters = try #require(shown.json["counters"] as? [String: Any])
                #expect(counters["audienceSize"] as? Int == 300 && counters["accepted"] as? Int == 300)
                #expect(counters["pending"] as? Int == 0 && counters["sent"] as? Int == 300)
                var seen = [Int]()
                var cursor: String?
                repeat {
                    let page = try await api.request(
                        .get, "/v1/campaigns/\(id)/deliveries?limit=128&outcome=accepted" + (cursor.map { "&cursor=\($0)" } ?? ""),
                        key: api.adminKey)
                    let rows = try #require(page.json["deliveries"] as? [[String: Any]])
                    seen += rows.compactMap { $0["deviceID"] as? Int }
                    #expect(rows.allSatisfy { $0["language"] as? String == "de" && ($0["tokenSuffix"] as? String)?.count == 8 })
                    cursor = page.json["nextCursor"] as? String
                } while cursor != nil
                #expect(seen.count == 300 && Set(seen).count == 300 && seen == seen.sorted())
            }
        }
    }
}
