import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import NIOCore
import Testing

@testable import HeraldServer

/// A campaign's audience described by a segment (docs/segments.md): estimated, scheduled and
/// sent through the API and the engine to the simulator over TLS; only matching devices get it.
@Suite(.serialized)
struct SegmentCampaignTests {
    static let segment = #"""
        {"all": [{"attribute": "cartItemCount", "gte": 3}, {"not": {"opened": {"withinDays": 30}}}, {"language": "pt"}]}
        """#

    /// On both engines: on a Citus cluster "not opened" is looked up as a set, in the estimate,
    /// the audience's count and every page of every chunk.
    @Test(arguments: EngineHarness.engines) func aSegmentNarrowsTheEstimateAndTheSend(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
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

    /// A campaign names a saved segment: scheduling pins its latest version, and a new version
    /// saved afterwards changes nothing for it; a version named explicitly is the one estimated.
    @Test func aCampaignPinsTheSavedSegmentVersionItWasScheduledWith() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<20) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": .int(n % 4)])
            }
            let segments = "/v1/apps/\(EngineHarness.bundleID)/segments"
            let version1 = Set((0..<20).filter { $0 % 4 >= 3 }.map { EngineHarness.token($0).hex })
            let version2Count = (0..<20).filter { $0 % 4 >= 2 }.count
            try await h.withAPI { api in
                let saved = try await api.request(
                    .post, segments, key: api.marketingKey,
                    body: #"{"name": "Big carts", "segment": {"attribute": "cartItemCount", "gte": 3}}"#)
                #expect(saved.status == .created, "\(saved.body)")
                let estimate = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "audience": {"savedSegment": "Big carts"}}"#)
                #expect(estimate.json["devices"] as? Int == version1.count, "\(estimate.body)")
                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: """
                        {"app": "\(EngineHarness.bundleID)", "name": "Pinned", "templateName": "cart-reminder",
                         "variables": {"storeName": "Acme"}, "sendAt": "2999-01-01T00:00:00Z",
                         "audience": {"savedSegment": "Big carts"}}
                        """)
                #expect(created.status == .created, "\(created.body)")
                let campaignID = try #require(created.json["id"] as? String)
                let scheduled = try await api.request(.post, "/v1/campaigns/\(campaignID)/schedule", key: api.marketingKey)
                #expect(scheduled.status == .ok, "\(scheduled.body)")
                let audience = try #require(scheduled.json["audience"] as? [String: Any])
                let reference = try #require(audience["savedSegment"] as? [String: Any], "\(scheduled.body)")
                #expect(reference["name"] as? String == "Big carts" && reference["version"] as? Int == 1)
                #expect(audience["savedSegmentDefinition"] == nil, "Herald's copy of the conditions stays inside")
                // Version 2 widens the segment; the scheduled campaign keeps version 1.
                let patched = try await api.request(
                    .patch, "\(segments)/Big%20carts", key: api.marketingKey,
                    body: #"{"segment": {"attribute": "cartItemCount", "gte": 2}}"#)
                #expect(patched.status == .ok && patched.json["version"] as? Int == 2, "\(patched.body)")
                let latest = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "audience": {"savedSegment": "Big carts"}}"#)
                #expect(latest.json["devices"] as? Int == version2Count, "\(latest.body)")
                let named = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "audience": {"savedSegment": {"name": "Big carts", "version": 1}}}"#)
                #expect(named.json["devices"] as? Int == version1.count, "\(named.body)")
                // Archiving the segment leaves the scheduled campaign its conditions.
                #expect(try await api.request(.delete, "\(segments)/Big%20carts", key: api.marketingKey).status == .noContent)
            }
            let publicID = try #require(
                try await h.store.client.query("UPDATE campaigns SET send_at = now() RETURNING public_id").collect().first?
                    .decode(UUID.self))
            let campaignID = publicID.uuidString
            try await h.withAPI(engine: true) { api in
                try await h.waitFor("the campaign to complete") {
                    try await api.request(.get, "/v1/campaigns/\(campaignID)", key: api.marketingKey).json["state"] as? String
                        == "completed"
                }
            }
            #expect(Set(try h.received().map(\.token)) == version1)
        }
    }

    @Test func aSavedSegmentThatIsNotThereIsRefusedNamingTheField() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let segments = "/v1/apps/\(EngineHarness.bundleID)/segments"
                #expect(
                    try await api.request(
                        .post, segments, key: api.marketingKey,
                        body: #"{"name": "Old", "segment": {"attribute": "plan", "eq": "pro"}}"#
                    ).status == .created)
                let cases: [(String, String)] = [
                    (#""Nobody""#, "audience.savedSegment"),
                    (#"{"name": "Old", "version": 7}"#, "audience.savedSegment"),
                    (#"{"name": "Old", "colour": "red"}"#, "audience.savedSegment.colour"),
                    (#"{"version": 1}"#, "audience.savedSegment.name"),
                    ("42", "audience.savedSegment"),
                    (#""a/b""#, "audience.savedSegment.name"),
                ]
                for (reference, field) in cases {
                    let reply = try await api.request(
                        .post, "/v1/campaigns", key: api.marketingKey,
                        body: """
                            {"app": "\(EngineHarness.bundleID)", "name": "Bad", "templateName": "cart-reminder",
                             "audience": {"savedSegment": \(reference)}}
                            """)
                    #expect(reply.status == .unprocessableContent, "\(reference): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(reference): \(reply.body)")
                }
                // A draft naming a segment archived before it is scheduled cannot be scheduled.
                let draft = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: """
                        {"app": "\(EngineHarness.bundleID)", "name": "Late", "templateName": "cart-reminder",
                         "variables": {"storeName": "Acme"}, "audience": {"savedSegment": "Old"}}
                        """)
                let id = try #require(draft.json["id"] as? String, "\(draft.body)")
                #expect(try await api.request(.delete, "\(segments)/Old", key: api.marketingKey).status == .noContent)
                let refused = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(
                    refused.status == .unprocessableContent && refused.json["field"] as? String == "audience.savedSegment",
                    "\(refused.body)")
                #expect(
                    try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String == "draft")
            }
        }
    }
}
