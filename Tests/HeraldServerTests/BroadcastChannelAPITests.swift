import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// iOS 18 broadcast channels end to end: made, listed and deleted through the API against the
/// simulator's management port over TLS; an activity's updates go to its channel as one
/// broadcast (beside its update tokens); a channel APNs forgot is marked gone.
@Suite(.serialized)
struct BroadcastChannelAPITests {
    static let bundle = EngineHarness.bundleID
    static let channels = "/v1/apps/\(bundle)/channels"

    @Test(arguments: CitusTestDatabase.engines) func anActivitysUpdatesGoToItsChannelAsOneBroadcastAndAForgottenChannelIsMarkedGone(
        onCluster: Bool
    ) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI(engine: false) { api in
                let created = try await api.request(
                    .post, Self.channels, key: api.appKey,
                    body: #"{"environment": "production", "storagePolicy": 1, "activityID": "match-2026-12-01"}"#)
                #expect(created.status == .created, "\(created.body)")
                let channelID = try #require(created.json["channelID"] as? String)
                let pathID = try #require(created.json["pathID"] as? String)
                #expect(created.json["state"] as? String == "active" && created.json["activityID"] as? String == "match-2026-12-01")
                #expect(h.simulator.channels(of: Self.bundle)[channelID] == .mostRecent)

                let shown = try await api.request(.get, "\(Self.channels)/\(pathID)", key: api.appKey)
                #expect(shown.status == .ok && shown.json["channelID"] as? String == channelID, "\(shown.body)")
                let listed = try await api.request(.get, "\(Self.channels)?activityID=match-2026-12-01", key: api.appKey)
                #expect((listed.json["channels"] as? [[String: Any]])?.count == 1, "\(listed.body)")
                let remote = try await api.request(.get, "/v1/apps/\(Self.bundle)/apns-channels?environment=production", key: api.appKey)
                let entries = try #require(remote.json["channels"] as? [[String: Any]], "\(remote.body)")
                #expect(entries.count == 1 && entries.first?["known"] as? Bool == true)

                // A second channel for the activity is refused before APNs is asked: none is made.
                let second = try await api.request(
                    .post, Self.channels, key: api.appKey, body: #"{"activityID": "match-2026-12-01"}"#)
                #expect(second.status == .conflict && second.problemSlug == "activity-has-channel", "\(second.body)")
                #expect(h.simulator.channels(of: Self.bundle).count == 1)

                // Two devices also registered update tokens for the activity: they get every update too.
                try await LiveActivityTests.registerTokens(h, api, activity: "match-2026-12-01", 0..<2)
                try await h.withEngines {
                    for score in 1...3 {
                        let reply = try await LiveActivityTests.post(
                            api, "match-2026-12-01", #"{"event": "update", "contentState": {"home": \#(score), "away": 0}}"#)
                        #expect(reply.status == .accepted, "\(reply.body)")
                        let done = try await LiveActivityTests.finished(
                            h, api, "match-2026-12-01", try #require(reply.json["id"] as? String))
                        let broadcasts = try #require(done["broadcasts"] as? [[String: Any]], "\(done)")
                        #expect(broadcasts.count == 1 && broadcasts.first?["outcome"] as? String == "accepted")
                        #expect(broadcasts.first?["channelID"] as? String == channelID)
                    }
                    // Three broadcasts; one sent again after its answer was lost under load (a
                    // retry, seen once in CI on a loaded machine) arrives twice with the same
                    // timestamp, which the devices ignore, never as a fourth update.
                    let received = h.simulator.broadcasts
                    #expect(received.count >= 3 && received.allSatisfy { $0.channel.value == channelID && $0.priority == .powerAware })
                    let stamps = try received.map { try #require(try Payload(json: $0.payload).aps.timestamp) }
                    #expect(stamps == stamps.sorted() && Set(stamps).count == 3, "\(stamps)")
                    let scores = try received.map { try Payload(json: $0.payload).aps.contentState }
                    #expect(scores.last == .object(["home": .int(3), "away": .int(0)]))
                    // Each token got the three updates; one sent again after its answer was lost
                    // under load (a retry) arrives twice with the same timestamp, not as a fourth.
                    let byToken = try LiveActivityTests.received(h)
                    #expect(byToken.count == 2)
                    #expect(
                        byToken.values.allSatisfy { Set($0.compactMap { $0["timestamp"] as? Int }).count == 3 },
                        "\(byToken.mapValues { $0.compactMap { $0["timestamp"] as? Int } })")

                    // APNs forgets the channel: the next broadcast is refused, the channel marked gone,
                    // and the update still reaches the tokens.
                    #expect(h.simulator.forgetChannel(channelID, of: Self.bundle))
                    let late = try await LiveActivityTests.post(
                        api, "match-2026-12-01", #"{"event": "update", "contentState": {"home": 4, "away": 0}}"#)
                    let done = try await LiveActivityTests.finished(h, api, "match-2026-12-01", try #require(late.json["id"] as? String))
                    let refused = try #require((done["broadcasts"] as? [[String: Any]])?.first, "\(done)")
                    #expect(refused["outcome"] as? String == "failed" && refused["reason"] as? String == "ChannelNotRegistered")
                    #expect(done["accepted"] as? Int == 2)
                }
                let gone = try await api.request(.get, "\(Self.channels)/\(pathID)", key: api.appKey)
                #expect(gone.json["state"] as? String == "gone" && gone.json["broadcasts"] as? Int == 3, "\(gone.body)")
                #expect(
                    try await h.store.client.query("SELECT count(*) FROM audit_log WHERE action = 'channel.gone'").collect().first?
                        .decode(Int64.self) == 1)

                // The activity can have a new channel now; deleting it removes it at APNs too.
                let fresh = try await api.request(.post, Self.channels, key: api.appKey, body: #"{"activityID": "match-2026-12-01"}"#)
                #expect(fresh.status == .created, "\(fresh.body)")
                let freshID = try #require(fresh.json["channelID"] as? String)
                let freshPath = try #require(freshID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let deleted = try await api.request(.delete, "\(Self.channels)/\(freshPath)", key: api.appKey)
                #expect(deleted.status == .ok && deleted.json["state"] as? String == "deleted", "\(deleted.body)")
                #expect(h.simulator.channels(of: Self.bundle).isEmpty)
                let again = try await api.request(.delete, "\(Self.channels)/\(freshPath)", key: api.appKey)
                #expect(again.status == .ok && again.json["state"] as? String == "deleted")
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badChannelRequestsAreRefusedNamingTheFieldAndMakeNothing(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI(engine: false) { api in
                let cases: [(HTTPRequest.Method, String, String?, HTTPResponse.Status, String?)] = [
                    (.post, Self.channels, #"{"storagePolicy": 2}"#, .unprocessableContent, "storagePolicy"),
                    (.post, Self.channels, #"{"storagePolicy": "1"}"#, .unprocessableContent, "storagePolicy"),
                    (.post, Self.channels, #"{"environment": "staging"}"#, .unprocessableContent, "environment"),
                    (.post, Self.channels, #"{"activityID": "a\u0001b"}"#, .unprocessableContent, "activityID"),
                    (.post, Self.channels, #"{"activityID": "\#(String(repeating: "x", count: 257))"}"#, .unprocessableContent, "activityID"),
                    (.post, Self.channels, #"{"colour": "red"}"#, .unprocessableContent, "colour"),
                    (.post, Self.channels, #"[1]"#, .badRequest, nil),
                    (.get, "\(Self.channels)/not%20base64!", nil, .unprocessableContent, "channelID"),
                    (.get, "\(Self.channels)/dW5rbm93bi1jaGFubmVs", nil, .notFound, "channelID"),
                    (.delete, "\(Self.channels)/dW5rbm93bi1jaGFubmVs", nil, .notFound, "channelID"),
                    (.get, "\(Self.channels)?cursor=zzz", nil, .unprocessableContent, "cursor"),
                    (.get, "\(Self.channels)?state=lost", nil, .unprocessableContent, "state"),
                    (.get, "/v1/apps/\(Self.bundle)/apns-channels?environment=moon", nil, .unprocessableContent, "environment"),
                ]
                for (method, path, body, status, field) in cases {
                    let reply = try await api.request(method, path, key: api.appKey, body: body)
                    #expect(reply.status == status, "\(method) \(path) \(body ?? ""): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(path) \(body ?? ""): \(reply.body)")
                }
                #expect(h.simulator.channels(of: Self.bundle).isEmpty)
                #expect(
                    try await h.store.client.query("SELECT count(*) FROM broadcast_channels").collect().first?.decode(Int64.self) == 0)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aStartCampaignNamingAChannelNeedsAnActiveOneAndAnAudienceInItsEnvironment(
        onCluster: Bool
    ) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await LiveActivityStartTests.registerDevices(h, 0..<5, type: "ScoreAttributes") { _ in true }
            try await h.withAPI(engine: false) { api in
                let made = try await api.request(.post, Self.channels, key: api.appKey, body: #"{"environment": "production"}"#)
                let channelID = try #require(made.json["channelID"] as? String, "\(made.body)")
                func schedule(channel: String, environment: String?) async throws -> Reply {
                    let audience = environment.map { #", "audience": {"environment": "\#($0)"}"# } ?? ""
                    let created = try await api.request(
                        .post, "/v1/campaigns", key: api.marketingKey,
                        body: """
                            {"app": "\(Self.bundle)", "name": "Kick-off", "templateName": "order-on-its-way"\(audience),
                             "variables": {"storeName": "Acme", "minutes": 25},
                             "pushOptions": {"pushType": "liveactivity", "liveActivity": {
                                "attributesType": "ScoreAttributes", "activityID": "final-2026", "inputPushChannel": "\(channel)"}}}
                            """)
                    #expect(created.status == .created, "\(created.body)")
                    let id = try #require(created.json["id"] as? String)
                    return try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                }
                let unknown = try await schedule(channel: "dW5rbm93bi1jaGFubmVs", environment: "production")
                #expect(unknown.status == .unprocessableContent && unknown.json["field"] as? String == "pushOptions.liveActivity.inputPushChannel")
                let everywhere = try await schedule(channel: channelID, environment: nil)
                #expect(everywhere.status == .unprocessableContent && everywhere.json["field"] as? String == "audience.environment")
                let sandbox = try await schedule(channel: channelID, environment: "sandbox")
                #expect(sandbox.status == .unprocessableContent && sandbox.json["field"] as? String == "audience.environment")
                let good = try await schedule(channel: channelID, environment: "production")
                #expect(good.status == .ok, "\(good.body)")
                // Scheduling bound the channel to the campaign's activity.
                let path = try #require(channelID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let bound = try await api.request(.get, "\(Self.channels)/\(path)", key: api.appKey)
                #expect(bound.json["activityID"] as? String == "final-2026", "\(bound.body)")
            }
        }
    }
}
