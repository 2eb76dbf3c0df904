import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// Saved segments through the API: created, counted with a sample, versioned, listed, archived;
/// bad input refused naming its field; another app's marketing key and app keys kept out.
@Suite struct SegmentAPITests {
    static let path = "/v1/apps/\(APIHarness.bundleID)/segments"

    static func register(_ h: APIHarness) async throws {
        for n in 0..<12 {
            _ = try await h.store.devices.register(
                appID: h.app.id, token: try DeviceToken(hex: APIHarness.token(n)),
                registration: try DeviceRegistration(
                    environment: .production, languages: n % 3 == 0 ? ["pt-BR"] : ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true), timeZone: "Europe/Lisbon",
                    userID: nil, attributes: ["cartValue": .int(n * 10)]))
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aSegmentIsSavedCountedVersionedAndArchived(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            try await Self.register(h)
            let created = try await h.request(
                .post, Self.path, key: h.marketingKey,
                body: #"{"name": "Big carts", "description": "over 50", "segment": {"attribute": "cartValue", "gt": 50}}"#)
            #expect(created.status == .created, "\(created.body)")
            #expect(created.json["version"] as? Int == 1 && created.json["count"] as? Int == 6)  // 60…110

            let shown = try await h.request(.get, "\(Self.path)/Big%20carts?sample=3", key: h.marketingKey)
            #expect(shown.status == .ok && shown.json["count"] as? Int == 6, "\(shown.body)")
            let sample = try #require(shown.json["sample"] as? [[String: Any]])
            #expect(sample.count == 3 && sample.allSatisfy { ($0["tokenSuffix"] as? String)?.count == 8 })
            #expect(!shown.body.contains(APIHarness.token(6)), "a whole token was shown")

            let edited = try await h.request(
                .patch, "\(Self.path)/Big%20carts", key: h.marketingKey,
                body: #"{"segment": {"all": [{"attribute": "cartValue", "gt": 50}, {"language": "pt"}]}}"#)
            #expect(edited.status == .ok && edited.json["version"] as? Int == 2 && edited.json["count"] as? Int == 2, "\(edited.body)")
            let first = try await h.request(.get, "\(Self.path)/Big%20carts?version=1", key: h.marketingKey)
            #expect(first.json["version"] as? Int == 1 && first.json["count"] as? Int == 6)
            let described = try await h.request(
                .patch, "\(Self.path)/Big%20carts", key: h.marketingKey, body: #"{"description": null}"#)
            #expect(described.json["version"] as? Int == 2 && described.json["description"] == nil, "\(described.body)")

            let evaluated = try await h.request(
                .post, "\(Self.path)/evaluate", key: h.marketingKey, body: #"{"segment": {"language": "pt"}, "sample": 0}"#)
            #expect(evaluated.json["count"] as? Int == 4 && (evaluated.json["sample"] as? [Any])?.isEmpty == true, "\(evaluated.body)")

            let taken = try await h.request(
                .post, Self.path, key: h.marketingKey, body: #"{"name": "Big carts", "segment": {"language": "pt"}}"#)
            #expect(taken.status == .conflict && taken.problemSlug == "segment-name-taken")

            let list = try await h.request(.get, Self.path, key: h.marketingKey)
            #expect((list.json["segments"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Big carts"])
            #expect(try await h.request(.delete, "\(Self.path)/Big%20carts", key: h.marketingKey).status == .noContent)
            #expect(try await h.request(.get, "\(Self.path)/Big%20carts", key: h.marketingKey).status == .notFound)
            // The name is free again; the archived versions stay.
            let again = try await h.request(
                .post, Self.path, key: h.marketingKey, body: #"{"name": "Big carts", "segment": {"language": "pt"}}"#)
            #expect(again.status == .created && again.json["version"] as? Int == 1)
            let versions = try await h.store.client.query("SELECT count(*) FROM segment_versions").collect()
            #expect(try versions.first?.decode(Int64.self) == 3)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badSegmentRequestsAreRefusedNamingTheFieldAndStoreNothing(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let cases: [(HTTPRequest.Method, String, String?, HTTPResponse.Status, String?)] = [
                (.post, Self.path, #"{"name": "x", "segment": {"attribute": "a", "gt": "big"}}"#, .unprocessableContent, "segment.gt"),
                (.post, Self.path, #"{"name": "x", "segment": {"all": [{"nope": 1}]}}"#, .unprocessableContent, "segment.all[0]"),
                (.post, Self.path, #"{"name": "", "segment": {"language": "pt"}}"#, .unprocessableContent, "name"),
                (.post, Self.path, #"{"name": "a/b", "segment": {"language": "pt"}}"#, .unprocessableContent, "name"),
                (.post, Self.path, #"{"name": "x\u0001", "segment": {"language": "pt"}}"#, .unprocessableContent, "name"),
                (.post, Self.path, #"{"name": "x"}"#, .unprocessableContent, "segment"),
                (.post, Self.path, #"{"name": "x", "segment": {"language": "pt"}, "colour": 1}"#, .unprocessableContent, "colour"),
                (.patch, "\(Self.path)/missing", #"{"description": "d"}"#, .notFound, "name"),
                (.patch, "\(Self.path)/missing", #"{}"#, .badRequest, nil),
                (.get, "\(Self.path)/missing?version=0", nil, .unprocessableContent, "version"),
                (.get, "\(Self.path)/missing?sample=51", nil, .unprocessableContent, "sample"),
                (.post, "\(Self.path)/evaluate", #"{"segment": {"not": {}}}"#, .unprocessableContent, "segment.not"),
                (.delete, "\(Self.path)/missing", nil, .notFound, "name"),
            ]
            for (method, path, body, status, field) in cases {
                let reply = try await h.request(method, path, key: h.marketingKey, body: body)
                #expect(reply.status == status, "\(method) \(path) \(body ?? ""): \(reply.body)")
                #expect(reply.json["field"] as? String == field, "\(path) \(body ?? ""): \(reply.body)")
            }
            let stored = try await h.store.client.query("SELECT count(*) FROM segments").collect()
            #expect(try stored.first?.decode(Int64.self) == 0)
            // Segments are marketing's: an app key is refused.
            let byApp = try await h.request(.get, Self.path, key: h.appKey)
            #expect(byApp.status == .forbidden)
        }
    }

    /// Segments built from events are evaluated, saved and edited alike on one PostgreSQL and on
    /// a Citus cluster, where `events` stays on the coordinator and is looked up as a set
    /// (docs/scaling.md, "Segments built from events"). Before a version is saved its count is
    /// planned, so a segment the database cannot run would be refused and store nothing.
    @Test(arguments: CitusTestDatabase.engines) func eventSegmentsAreEvaluatedSavedAndEditedOnBothEngines(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            try await Self.register(h)
            let segments = [
                #"{"not": {"opened": {"withinDays": 30}}}"#, #"{"converted": {"event": "purchase"}}"#,
                #"{"any": [{"language": "pt"}, {"event": {"name": "cart_abandoned"}}]}"#,
            ]
            // No events yet: "not opened" is every device, the others their plain part.
            let counts = [12, 0, 4]
            for (segment, count) in zip(segments, counts) {
                let evaluated = try await h.request(
                    .post, "\(Self.path)/evaluate", key: h.marketingKey, body: #"{"segment": \#(segment), "sample": 2}"#)
                #expect(evaluated.status == .ok && evaluated.json["count"] as? Int == count, "\(segment): \(evaluated.body)")
                let saved = try await h.request(
                    .post, Self.path, key: h.marketingKey, body: #"{"name": "by events", "segment": \#(segment)}"#)
                #expect(saved.status == .created && saved.json["count"] as? Int == count, "\(segment): \(saved.body)")
                #expect(try await h.request(.delete, "\(Self.path)/by%20events", key: h.marketingKey).status == .noContent)
            }
            // A saved segment changed to one built from events gets its second version.
            let plain = try await h.request(.post, Self.path, key: h.marketingKey, body: #"{"name": "plain", "segment": {"language": "pt"}}"#)
            #expect(plain.status == .created, "\(plain.body)")
            let edited = try await h.request(
                .patch, "\(Self.path)/plain", key: h.marketingKey, body: #"{"segment": \#(segments[1])}"#)
            #expect(edited.status == .ok, "\(edited.body)")
            let shown = try await h.request(.get, "\(Self.path)/plain", key: h.marketingKey)
            #expect(shown.json["version"] as? Int == 2, "\(shown.body)")
            let stored = try await h.store.client.query("SELECT count(*) FROM segment_versions").collect()
            #expect(try stored.first?.decode(Int64.self) == 5)
        }
    }
}
