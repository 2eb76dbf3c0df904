import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// Live Activity updates end to end: update tokens registered through the API, updates fanned
/// out by two engines to the simulator over TLS, in the order of their `aps.timestamp`, 410s
/// dropping tokens by APNs's timestamp, bursts coalesced, the priority allowance.
@Suite(.serialized)
struct LiveActivityTests {
    static let bundle = EngineHarness.bundleID
    static func activityPath(_ activity: String) -> String { "/v1/apps/\(bundle)/live-activities/\(activity)" }

    /// The update token a device `n` registers (not its device token).
    static func updateToken(_ n: Int) -> DeviceToken { EngineHarness.token(1_000_000 + n) }

    /// Registers devices `numbers` and, through the API, an update token for each under `activity`.
    static func registerTokens(_ h: EngineHarness, _ api: EngineAPI, activity: String, _ numbers: Range<Int>) async throws {
        try await h.register(numbers) { _ in
            try DeviceRegistration(
                environment: .production, languages: ["en"], authorization: .notDetermined, timeZone: nil, userID: nil,
                attributes: [:])
        }
        for n in numbers {
            let reply = try await api.request(
                .put, "\(activityPath(activity))/tokens/\(EngineHarness.token(n).hex)", key: api.appKey,
                body: #"{"token": "\#(updateToken(n).hex)"}"#)
            #expect(reply.status == .created, "\(reply.body)")
        }
    }

    static func post(_ api: EngineAPI, _ activity: String, _ body: String) async throws -> Reply {
        try await api.request(.post, "\(activityPath(activity))/updates", key: api.appKey, body: body)
    }

    /// Waits until the update has finished (sent or superseded) and returns it as the API shows it.
    static func finished(_ h: EngineHarness, _ api: EngineAPI, _ activity: String, _ id: String) async throws -> [String: Any] {
        try await h.waitFor("update \(id) to finish") {
            let state = try await api.request(.get, "\(activityPath(activity))/updates/\(id)", key: api.appKey).json["state"]
            return state as? String == "sent" || state as? String == "superseded"
        }
        return try await api.request(.get, "\(activityPath(activity))/updates/\(id)", key: api.appKey).json
    }

    /// Each received Live Activity push's token → its payloads' aps, in arrival order.
    static func received(_ h: EngineHarness) throws -> [String: [[String: Any]]] {
        var byToken = [String: [[String: Any]]]()
        for notification in try h.received() where notification.pushType == "liveactivity" {
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(notification.payload.utf8)) as? [String: Any])
            byToken[notification.token, default: []].append(try #require(payload["aps"] as? [String: Any]))
        }
        return byToken
    }

    @Test func tenUpdatesAndAnEndReachEveryTokenInOrderAndA410DropsOnlyATokenNotRegisteredSince() async throws {
        // Tokens 0-2 answer 410 with a timestamp after their registration: dropped at the first
        // update. Tokens 3-4 answer 410 with a timestamp from 2001: registered since, they stay.
        var fault = SimulatorFaultScript()
        for n in 0..<3 { fault.unregistered[Self.updateToken(n).hex] = Date().addingTimeInterval(3600) }
        for n in 3..<5 { fault.unregistered[Self.updateToken(n).hex] = Date(timeIntervalSince1970: 1_000_000_000) }
        try await EngineHarness.with(fault: fault) { h in
            try await h.withAPI(engine: false) { api in
                try await Self.registerTokens(h, api, activity: "match-1", 0..<450)
                let activity = try await api.request(.get, Self.activityPath("match-1"), key: api.appKey).json
                #expect(activity["tokens"] as? Int == 450 && activity["state"] as? String == "active")
                try await h.withEngines(owners: ["engine-1", "engine-2"]) {
                    var timestamps = [Int]()
                    for step in 1...11 {
                        let body =
                            step == 11
                            ? #"{"event": "end", "contentState": {"home": 3, "away": 1, "minute": 90}, "dismissalDate": "2026-01-01T00:00:00Z"}"#
                            : #"{"event": "update", "contentState": {"home": \#(step / 4), "away": 1, "minute": \#(step * 8)}}"#
                        let reply = try await Self.post(api, "match-1", body)
                        #expect(reply.status == .accepted, "\(reply.body)")
                        let id = try #require(reply.json["id"] as? String)
                        timestamps.append(try #require(reply.json["timestamp"] as? Int))
                        let done = try await Self.finished(h, api, "match-1", id)
                        #expect(done["state"] as? String == "sent")
                        let tokens = step == 1 ? 450 : 447
                        #expect((done["accepted"] as? Int ?? 0) + (done["failed"] as? Int ?? 0) == tokens, "\(done)")
                        #expect(done["dropped"] as? Int == (step == 1 ? 3 : 0), "\(done)")
                        // Every token of the update has its ledger row.
                        var rows = 0
                        var cursor = ""
                        repeat {
                            let page = try await api.request(
                                .get, "\(Self.activityPath("match-1"))/updates/\(id)/deliveries?limit=1000\(cursor)",
                                key: api.appKey
                            ).json
                            rows += (page["deliveries"] as? [Any])?.count ?? 0
                            cursor = (page["nextCursor"] as? String).map { "&cursor=\($0)" } ?? ""
                        } while !cursor.isEmpty
                        #expect(rows == tokens)
                    }
                    #expect(timestamps == timestamps.sorted() && Set(timestamps).count == 11, "\(timestamps)")
                }
                let received = try Self.received(h)
                for n in 5..<450 {
                    let pushes = try #require(received[Self.updateToken(n).hex], "token \(n) got nothing")
                    let stamps = pushes.compactMap { $0["timestamp"] as? Int }
                    #expect(pushes.count == 11 && stamps == stamps.sorted() && Set(stamps).count == 11, "token \(n): \(stamps)")
                    #expect(pushes.last?["event"] as? String == "end" && pushes.last?["dismissal-date"] as? Int == 1_767_225_600)
                }
                // Dropped tokens got nothing after the first 410; the re-registered ones stayed.
                for n in 0..<3 { #expect(received[Self.updateToken(n).hex] == nil) }
                let remaining = try await api.request(.get, Self.activityPath("match-1"), key: api.appKey).json
                #expect(remaining["tokens"] as? Int == 447 && remaining["state"] as? String == "ended", "\(remaining)")
                // Each push went as Apple requires: the push type, its topic suffix, priority 5 for
                // a silent update and 10 for the end; each apns-id once.
                let all = try h.received().filter { $0.pushType == "liveactivity" }
                #expect(all.allSatisfy { $0.topic == "\(Self.bundle).push-type.liveactivity" })
                #expect(Set(all.map(\.apnsID)).count == all.count)
                #expect(all.filter { $0.priority == 10 }.count == 445)
                // An ended activity takes no more updates or tokens.
                let late = try await Self.post(api, "match-1", #"{"event": "update", "contentState": {"home": 9}}"#)
                #expect(late.status == .conflict && late.problemSlug == "activity-ended", "\(late.body)")
                let token = try await api.request(
                    .put, "\(Self.activityPath("match-1"))/tokens/\(EngineHarness.token(7).hex)", key: api.appKey,
                    body: #"{"token": "\#(Self.updateToken(9999).hex)"}"#)
                #expect(token.status == .conflict)
            }
        }
    }

    @Test func aBurstOfFiftyUpdatesIsCoalescedAndTheLastAndTheEndAlwaysGo() async throws {
        // Each answer takes 20 ms, so updates arrive faster than 300 tokens can be sent.
        try await EngineHarness.with(fault: SimulatorFaultScript(responseDelay: .milliseconds(20))) { h in
            try await h.withAPI(engine: false) { api in
                try await Self.registerTokens(h, api, activity: "order-8812", 0..<300)
                try await h.withEngines {
                    var ids = [String]()
                    for step in 1...50 {
                        let reply = try await Self.post(
                            api, "order-8812", #"{"event": "update", "contentState": {"step": \#(step)}}"#)
                        #expect(reply.status == .accepted)
                        ids.append(try #require(reply.json["id"] as? String))
                    }
                    let end = try await Self.post(api, "order-8812", #"{"event": "end", "contentState": {"step": 51}}"#)
                    #expect(end.status == .accepted)
                    let endDone = try await Self.finished(h, api, "order-8812", try #require(end.json["id"] as? String))
                    #expect(endDone["state"] as? String == "sent" && endDone["accepted"] as? Int == 300, "\(endDone)")
                    var sent = 0
                    var superseded = 0
                    for id in ids {
                        let update = try await Self.finished(h, api, "order-8812", id)
                        if update["state"] as? String == "sent" { sent += 1 } else { superseded += 1 }
                    }
                    #expect(superseded > 0 && sent < 50, "sent \(sent), superseded \(superseded)")
                }
                let received = try Self.received(h)
                #expect(received.count == 300)
                for (token, pushes) in received {
                    let stamps = pushes.compactMap { $0["timestamp"] as? Int }
                    #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count, "\(token): \(stamps)")
                    #expect(pushes.last?["event"] as? String == "end", "\(token): the end is not last")
                    #expect(pushes.count < 51, "\(token) got every update: nothing was coalesced")
                }
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func priorityTenBeyondTheAllowanceGoesAtFiveAndSaysSo(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI(engine: false) { api in
                let set = try await api.request(
                    .patch, "/v1/apps/\(Self.bundle)", key: api.adminKey, body: #"{"liveActivityHighPriorityPerHour": 2}"#)
                #expect(set.status == .ok && set.json["liveActivityHighPriorityPerHour"] as? Int == 2, "\(set.body)")
                try await Self.registerTokens(h, api, activity: "flight-ba117", 0..<3)
                try await h.withEngines {
                    var answers = [[String: Any]]()
                    for minute in 1...3 {
                        let reply = try await Self.post(
                            api, "flight-ba117", #"{"event": "update", "contentState": {"gate": "A\#(minute)"}, "priority": 10}"#)
                        #expect(reply.status == .accepted)
                        answers.append(reply.json)
                        _ = try await Self.finished(h, api, "flight-ba117", try #require(reply.json["id"] as? String))
                    }
                    #expect(answers.map { $0["priority"] as? Int } == [10, 10, 5])
                    #expect(answers.map { $0["priorityLowered"] as? Bool } == [false, false, true])
                    #expect((answers[2]["note"] as? String)?.contains("liveActivityHighPriorityPerHour") == true)
                    // An alerting update goes at 10 whatever the allowance, and does not spend it.
                    let alerting = try await Self.post(
                        api, "flight-ba117",
                        #"{"event": "update", "contentState": {"gate": "B7"}, "alert": {"title": "Gate change", "body": "Now boarding at B7", "sound": "default"}}"#
                    )
                    #expect(alerting.json["priority"] as? Int == 10 && alerting.json["priorityLowered"] as? Bool == false)
                    _ = try await Self.finished(h, api, "flight-ba117", try #require(alerting.json["id"] as? String))
                }
                let priorities = try h.received().filter { $0.pushType == "liveactivity" }.map { $0.priority ?? 0 }
                #expect(priorities == [10, 10, 10, 10, 10, 10, 5, 5, 5, 10, 10, 10])
                let last = try #require(try Self.received(h)[Self.updateToken(0).hex]?.last)
                let alert = try #require(last["alert"] as? [String: Any])
                #expect(alert["title"] as? String == "Gate change" && alert["sound"] as? String == "default")
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badUpdatesAreRefusedNamingTheFieldAndQueueNothing(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI(engine: false) { api in
                try await Self.registerTokens(h, api, activity: "sale-1", 0..<1)
                let big = String(repeating: "x", count: 4100)
                let cases: [(path: String, body: String, status: HTTPResponse.Status, field: String?)] = [
                    ("sale-1", #"{"event": "update", "contentState": [1, 2]}"#, .unprocessableContent, "contentState"),
                    ("sale-1", #"{"event": "update", "contentState": "on"}"#, .unprocessableContent, "contentState"),
                    ("sale-1", #"{"event": "update", "contentState": {"text": "\#(big)"}}"#, .unprocessableContent, "contentState"),
                    (
                        "sale-1", #"{"event": "update", "contentState": {}, "dismissalDate": "2020-01-01T00:00:00Z"}"#,
                        .unprocessableContent, "dismissalDate"
                    ),
                    ("sale-1", #"{"event": "update", "contentState": {}, "relevanceScore": "high"}"#, .unprocessableContent, "relevanceScore"),
                    ("sale-1", #"{"event": "start", "contentState": {}}"#, .unprocessableContent, "event"),
                    ("sale-1", #"{"event": "pause", "contentState": {}}"#, .unprocessableContent, "event"),
                    ("sale-1", #"{"event": "update", "contentState": {}, "priority": 7}"#, .unprocessableContent, "priority"),
                    ("sale-1", #"{"event": "update", "contentState": {}, "colour": "red"}"#, .unprocessableContent, "colour"),
                    ("sale-1", #"{"event": "update", "contentState": {"a": "b\u0000"}}"#, .unprocessableContent, "contentState.a"),
                    (
                        "sale-1", #"{"event": "update", "contentState": {}, "staleDate": "2001-01-01T00:00:00Z"}"#,
                        .unprocessableContent, "staleDate"
                    ),
                    (
                        "sale-1", #"{"event": "update", "contentState": {}, "alert": {"template": "no-such-template"}}"#,
                        .unprocessableContent, "alert.template.name"
                    ),
                    ("sale-1", #"{"event": "update", "contentState": {}, "alert": {"title": "Hi"}}"#, .unprocessableContent, "alert.body"),
                    ("bad%01id", #"{"event": "update", "contentState": {}}"#, .unprocessableContent, "activityID"),
                    (String(repeating: "a", count: 257), #"{"event": "update", "contentState": {}}"#, .unprocessableContent, "activityID"),
                    ("no-such-activity", #"{"event": "update", "contentState": {}}"#, .notFound, "activityID"),
                ]
                for item in cases {
                    let reply = try await Self.post(api, item.path, item.body)
                    #expect(reply.status == item.status, "\(item.body): \(reply.status) \(reply.body)")
                    if let field = item.field {
                        let named = reply.json["field"] as? String ?? (reply.json["errors"] as? [[String: Any]])?.first?["field"] as? String
                        #expect(named == field, "\(item.body): \(reply.body)")
                    }
                }
                let rows = try await h.store.client.query("SELECT count(*) FROM live_activity_updates").collect()
                #expect(try rows.first?.decode(Int64.self) == 0)
                // A token for a device that is not registered, a token that is not hex.
                let unknown = try await api.request(
                    .put, "\(Self.activityPath("sale-1"))/tokens/\(EngineHarness.token(77).hex)", key: api.appKey,
                    body: #"{"token": "\#(Self.updateToken(77).hex)"}"#)
                #expect(unknown.status == .notFound)
                let notHex = try await api.request(
                    .put, "\(Self.activityPath("sale-1"))/tokens/\(EngineHarness.token(0).hex)", key: api.appKey,
                    body: #"{"token": "zz"}"#)
                #expect(notHex.status == .unprocessableContent && notHex.json["field"] as? String == "token")
                // Marketing keys read activities but do not send to them.
                let marketing = try await api.request(
                    .post, "\(Self.activityPath("sale-1"))/updates", key: api.marketingKey,
                    body: #"{"event": "update", "contentState": {}}"#)
                #expect(marketing.status == .forbidden)
                // The list pages newest first; a cursor Herald did not give is refused.
                try await Self.registerTokens(h, api, activity: "sale-2", 1..<2)
                try await Self.registerTokens(h, api, activity: "sale-3", 2..<3)
                var seen = [String]()
                var cursor = ""
                repeat {
                    let page = try await api.request(.get, "/v1/apps/\(Self.bundle)/live-activities?limit=1\(cursor)", key: api.appKey)
                    #expect(page.status == .ok, "\(page.body)")
                    seen += (page.json["activities"] as? [[String: Any]] ?? []).compactMap { $0["activityID"] as? String }
                    cursor = (page.json["nextCursor"] as? String).map { "&cursor=\($0)" } ?? ""
                } while !cursor.isEmpty && seen.count < 10
                #expect(seen == ["sale-3", "sale-2", "sale-1"], "\(seen)")
                for bad in ["x", "99999999999999999999.a", "-5.a", "9223372036854775807.a", "1.a%00b"] {
                    let reply = try await api.request(.get, "/v1/apps/\(Self.bundle)/live-activities?cursor=\(bad)", key: api.appKey)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == "cursor", "\(bad): \(reply.body)")
                }
                // The same idempotency key answers the first update.
                let first = try await Self.post(api, "sale-1", #"{"event": "update", "contentState": {"p": 1}, "idempotencyKey": "k-1"}"#)
                let again = try await Self.post(api, "sale-1", #"{"event": "update", "contentState": {"p": 2}, "idempotencyKey": "k-1"}"#)
                #expect(first.status == .accepted && again.status == .ok && first.json["id"] as? String == again.json["id"] as? String)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func startTokensAreKeptPerAttributesTypeReplacedAndGoWithTheirDevice(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI(engine: false) { api in
                try await h.register(0..<1) { _ in
                    try DeviceRegistration(
                        environment: .production, languages: [], authorization: .notDetermined, timeZone: nil, userID: nil,
                        attributes: [:])
                }
                let device = EngineHarness.token(0).hex
                let path = "/v1/apps/\(Self.bundle)/devices/\(device)/start-tokens"
                for (type, n) in [("DeliveryAttributes", 1), ("MatchAttributes", 2), ("DeliveryAttributes", 3)] {
                    let reply = try await api.request(
                        .put, "\(path)/\(type)", key: api.appKey, body: #"{"token": "\#(Self.updateToken(n).hex)"}"#)
                    #expect(reply.status == .ok, "\(reply.body)")
                    #expect(!reply.body.contains(Self.updateToken(n).hex), "a full token was answered")
                }
                let list = try await api.request(.get, path, key: api.appKey).json
                let tokens = try #require(list["startTokens"] as? [[String: Any]])
                #expect(tokens.map { $0["attributesType"] as? String } == ["DeliveryAttributes", "MatchAttributes"])
                #expect(tokens.first?["tokenSuffix"] as? String == String(Self.updateToken(3).hex.suffix(8)))
                let badType = try await api.request(
                    .put, "\(path)/1Bad-Type", key: api.appKey, body: #"{"token": "\#(Self.updateToken(4).hex)"}"#)
                #expect(badType.status == .unprocessableContent && badType.json["field"] as? String == "attributesType")
                #expect(try await api.request(.delete, "\(path)/MatchAttributes", key: api.appKey).status == .noContent)
                #expect(try await api.request(.delete, "\(path)/MatchAttributes", key: api.appKey).status == .notFound)
                #expect(try await api.request(.delete, "/v1/apps/\(Self.bundle)/devices/\(device)", key: api.appKey).status == .noContent)
                let rows = try await h.store.client.query("SELECT count(*) FROM live_activity_start_tokens").collect()
                #expect(try rows.first?.decode(Int64.self) == 0)
            }
        }
    }
}
