import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import NIOCore
import Testing

@testable import herald

/// A campaign's audience described by a segment (docs/segments.md): estimated, scheduled and
/// sent through the API and the engine to the simulator over TLS; only matching devices get it.
@Suite(.serialized)
struct SegmentCampaignTests {
    static let segment = #"""
        {"all": [{"attribute": "cartItemCount", "gte": 3}, {"not": {"opened": {"withinDays": 30}}}, {"language": "pt"}]}
        """#

    @Test func aSegmentNarrowsTheEstimateAndTheSend() async throws {
        try await EngineHarness.with { h in
            // 0..<40: cart sizes 0..<8 by n % 8; every other device prefers Portuguese among its languages.
            try await h.register(0..<40) { n in
                try DeviceRegistration(
                    environment: .production, languages: n % 2 == 0 ? ["en", "pt-BR"] : ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": .int(n % 8)])
            }
            // Device 4 opened something last week: "has not opened in 30 days" leaves it out.
            try await h.store.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, apns_id, device_id)
                SELECT app_id, 'opened', sha256(token), now() - interval '7 days', gen_random_uuid(), id FROM devices
                WHERE app_id = \(h.app.id) AND token = \(ByteBuffer(bytes: EngineHarness.token(4).bytes))
                """)
            let expected = Set((0..<40).filter { $0 % 2 == 0 && $0 % 8 >= 3 && $0 != 4 }.map { EngineHarness.token($0).hex })
            try await h.withAPI(engine: true) { api in
                let estimate = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "audience": {"segment": \#(Self.segment)}}"#)
                #expect(estimate.status == .ok && estimate.json["devices"] as? Int == expected.count, "\(estimate.body)")
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: """
                        {"app": "\(EngineHarness.bundleID)", "name": "Big carts", "templateName": "cart-reminder",
                         "variables": {"storeName": "Acme"}, "audience": {"environment": "production", "segment": \(Self.segment)}}
                        """)
                #expect(created.status == .created, "\(created.body)")
                let id = try #require(created.json["id"] as? String)
                // The campaign shows its segment as given.
                let audience = try #require(created.json["audience"] as? [String: Any])
                #expect(audience["segment"] != nil && audience["segmentTime"] == nil, "\(created.body)")
                #expect(try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey).status == .ok)
                try await h.waitFor("the campaign to complete") {
                    try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String == "completed"
                }
            }
            let received = Set(try h.received().map(\.token))
            #expect(received == expected)
        }
    }

    @Test func aBadSegmentIsRefusedNamingItsPathAndStoresNothing() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let cases: [(String, String)] = [
                    (#"{"attribute": "cartItemCount", "gt": "three"}"#, "audience.segment.gt"),
                    (#"{"all": [{"language": "pt"}, {"opened": {"withinDays": -1}}]}"#, "audience.segment.all[1].opened.withinDays"),
                    (#"{"any": [{"colour": "red"}]}"#, "audience.segment.any[0]"),
                    (#"{"attribute": "plan", "like": "p%"}"#, "audience.segment.like"),
                ]
                for (segment, field) in cases {
                    let reply = try await api.request(
                        .post, "/v1/campaigns", key: api.marketingKey,
                        body: """
                            {"app": "\(EngineHarness.bundleID)", "name": "Bad", "templateName": "cart-reminder",
                             "audience": {"segment": \(segment)}}
                            """)
                    #expect(reply.status == .unprocessableContent, "\(segment): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(segment): \(reply.body)")
                }
                let campaigns = try await h.store.client.query("SELECT count(*) FROM campaigns").collect()
                #expect(try campaigns.first?.decode(Int64.self) == 0)
            }
        }
    }
}
