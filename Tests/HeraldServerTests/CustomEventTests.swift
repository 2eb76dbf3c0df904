import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Custom events (docs/campaigns.md "Events"): anything the app names, with properties, for a
/// device or a user; stored once; read by segments.
@Suite(.serialized)
struct CustomEventTests {
    static func events(_ items: String) -> String { #"{"events": [\#(items)]}"# }

    static func now(minus days: Double = 0) -> String { RFC3339.format(Date().addingTimeInterval(-days * 86_400)) }

    @Test(arguments: EngineHarness.engines) func customEventsAreStoredOnceAndSegmentsFindTheirDevicesAndUsers(
        onCluster: Bool
    )
        async throws
    {
        try await EngineHarness.with(onCluster: onCluster) { h in
            // 0: a device with its own event; 1 and 2: user u1's devices (the event names the user);
            // 3: an event ten days ago; 4: nothing.
            try await h.register(0..<5) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true), timeZone: nil,
                    userID: n == 1 || n == 2 ? "u1" : "user-\(n)", attributes: ["firstName": "Ana"])
            }
            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)/events"
                let body = Self.events(
                    """
                    {"type": "custom", "name": "cart_abandoned", "token": "\(EngineHarness.token(0).hex)", "occurredAt": "\(Self.now(minus: 1))",
                     "properties": {"cartValue": 82.5, "items": ["shoes", "socks"]}},
                    {"type": "custom", "name": "cart_abandoned", "userID": "u1", "occurredAt": "\(Self.now(minus: 2))", "id": "abc-1"},
                    {"type": "custom", "name": "cart_abandoned", "token": "\(EngineHarness.token(3).hex)", "occurredAt": "\(Self.now(minus: 10))"}
                    """)
                let first = try await api.request(.post, path, key: api.appKey, body: body)
                #expect(first.status == .ok && first.json["stored"] as? Int == 3, "\(first.body)")
                let again = try await api.request(.post, path, key: api.appKey, body: body)
                #expect(again.json["stored"] as? Int == 0 && again.json["duplicates"] as? Int == 3, "\(again.body)")
                let stored = try await h.store.client.query(
                    "SELECT properties->>'cartValue' FROM events WHERE kind = 'custom' AND properties IS NOT NULL"
                ).collect().map { try $0.decode(String?.self) }
                #expect(stored == ["82.5"])
                let evaluate = "/v1/apps/\(EngineHarness.bundleID)/segments/evaluate"
                let week = try await api.request(
                    .post, evaluate, key: api.marketingKey,
                    body: #"{"segment": {"event": {"name": "cart_abandoned", "withinDays": 7}}}"#)
                #expect(week.json["count"] as? Int == 3, "\(week.body)")
                let ever = try await api.request(
                    .post, evaluate, key: api.marketingKey, body: #"{"segment": {"event": {"name": "cart_abandoned"}}}"#)
                #expect(ever.json["count"] as? Int == 4, "\(ever.body)")
                let never = try await api.request(
                    .post, evaluate, key: api.marketingKey,
                    body: #"{"segment": {"not": {"event": {"name": "cart_abandoned"}}}}"#)
                #expect(never.json["count"] as? Int == 1, "\(never.body)")
                // A user's export shows the properties; erasing the user clears them.
                let export = try await api.request(
                    .get, "/v1/apps/\(EngineHarness.bundleID)/users/user-0/export", key: api.adminKey)
                #expect(export.status == .ok && export.body.contains("\"cartValue\":82.5"), "\(export.body)")
                let erased = try await api.request(.delete, "/v1/apps/\(EngineHarness.bundleID)/users/user-0", key: api.adminKey)
                #expect(erased.status == .ok, "\(erased.body)")
                let left = try await h.store.client.query(
                    "SELECT count(*) FROM events WHERE properties IS NOT NULL"
                ).collect().first?.decode(Int64.self)
                #expect(left == 0)
            }
        }
    }

    @Test func badCustomEventsAreRefusedNamingTheFieldAndStoreNothing() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let token = EngineHarness.token(0).hex
                let big = String(repeating: "x", count: 5000)
                let cases: [(String, String)] = [
                    (#"{"type": "custom", "name": "a\u0001b", "token": "\#(token)", "occurredAt": "\#(Self.now())"}"#, "events[0].name"),
                    (#"{"type": "custom", "name": "", "token": "\#(token)", "occurredAt": "\#(Self.now())"}"#, "events[0].name"),
                    (#"{"type": "custom", "name": "opened", "token": "\#(token)", "occurredAt": "\#(Self.now())"}"#, "events[0].name"),
                    (#"{"type": "custom", "name": "x", "occurredAt": "\#(Self.now())"}"#, "events[0].token"),
                    (
                        #"{"type": "custom", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())", "properties": [1]}"#,
                        "events[0].properties"
                    ),
                    (
                        #"{"type": "custom", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())", "properties": {"a": "\#(big)"}}"#,
                        "events[0].properties"
                    ),
                    (
                        #"{"type": "custom", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())", "properties": {"a": "b\u0000"}}"#,
                        "events[0].properties.a"
                    ),
                    (#"{"type": "custom", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())", "value": 3}"#, "events[0].value"),
                    (#"{"type": "custom", "name": "x", "token": "\#(token)", "occurredAt": "2999-01-01T00:00:00Z"}"#, "events[0].occurredAt"),
                    (
                        #"{"type": "converted", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())", "properties": {}}"#,
                        "events[0].properties"
                    ),
                    (#"{"type": "visited", "name": "x", "token": "\#(token)", "occurredAt": "\#(Self.now())"}"#, "events[0].type"),
                ]
                for (event, field) in cases {
                    let reply = try await api.request(
                        .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey, body: Self.events(event))
                    #expect(reply.status == .unprocessableContent, "\(field): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(field): \(reply.body)")
                }
                let stored = try await h.store.client.query("SELECT count(*) FROM events").collect().first?.decode(Int64.self)
                #expect(stored == 0)
            }
        }
    }
}
