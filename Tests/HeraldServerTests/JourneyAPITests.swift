import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// `/v1/apps/{bundleID}/journeys` (docs/journeys.md): a graph that could not run is a 422
/// naming its step and field with nothing stored; a journey goes from draft to archived; events
/// sent to the API enter users and the report counts them.
@Suite(.serialized)
struct JourneyAPITests {
    static let path = "/v1/apps/\(EngineHarness.bundleID)/journeys"

    static func body(name: String = "Cart", _ journey: String) -> String { #"{"name": "\#(name)", "journey": \#(journey)}"# }

    static func graph(steps: String, start: String = "a", entry: String = #"{"event": {"name": "cart_abandoned"}}"#) -> String {
        #"{"entry": \#(entry), "start": "\#(start)", "steps": {\#(steps)}}"#
    }

    @Test(arguments: CitusTestDatabase.engines) func graphsThatCouldNotRunAre422NamingTheStepAndFieldWithNothingStored(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI { api in
                // A VoIP template: a journey cannot send it.
                let voip = #"{"defaultLanguage":"en","body":{"key":"CALL"},"payload":{"pushType":"voip"},"strings":{"en":{"CALL":"Call"}}}"#
                let put = try await api.request(.put, "/v1/templates/call-me", key: api.marketingKey, body: voip)
                #expect(put.status == .created, "\(put.body)")
                let exit = #""z": {"exit": {}}"#
                let cases: [(String, String)] = [
                    // A cycle with no wait.
                    (
                        Self.body(
                            Self.graph(
                                steps:
                                    #""a": {"branch": {"opened": true}, "yes": "b", "no": "z"}, "b": {"send": {"template": "welcome"}, "next": "a"}, \#(exit)"#
                            )),
                        "journey.steps.a"
                    ),
                    // A step no path reaches.
                    (Self.body(Self.graph(steps: #""a": {"exit": {}}, "lost": {"exit": {}}"#)), "journey.steps.lost"),
                    // A path that never ends.
                    (
                        Self.body(Self.graph(steps: #""a": {"wait": {"minutes": 5}, "next": "b"}, "b": {"wait": {"minutes": 5}, "next": "a"}"#)),
                        "journey.steps.a"
                    ),
                    // A waitFor without a timeout.
                    (
                        Self.body(Self.graph(steps: #""a": {"waitFor": {"opened": true}, "next": "z", "timeoutNext": "z"}, \#(exit)"#)),
                        "journey.steps.a.timeoutMinutes"
                    ),
                    // Split weights that are not positive.
                    (
                        Self.body(Self.graph(steps: #""a": {"split": [{"weight": 0, "next": "z"}, {"weight": 1, "next": "z"}]}, \#(exit)"#)),
                        "journey.steps.a.split[0].weight"
                    ),
                    (
                        Self.body(Self.graph(steps: #""a": {"split": [{"weight": -2, "next": "z"}, {"weight": 1.5, "next": "z"}]}, \#(exit)"#)),
                        "journey.steps.a.split[0].weight"
                    ),
                    // A template whose push type does not fit, and one that does not exist.
                    (
                        Self.body(Self.graph(steps: #""a": {"send": {"template": "call-me"}, "next": "z"}, \#(exit)"#)),
                        "journey.steps.a.send.template"
                    ),
                    (
                        Self.body(Self.graph(steps: #""a": {"send": {"template": "nope"}, "next": "z"}, \#(exit)"#)),
                        "journey.steps.a.send.template"
                    ),
                    // An event name with a control character.
                    (
                        Self.body(Self.graph(steps: exit, start: "z", entry: #"{"event": {"name": "cart\u0001"}}"#)),
                        "journey.entry.event.name"
                    ),
                    // An entry condition on a property compared with a value of the wrong type.
                    (
                        Self.body(
                            Self.graph(
                                steps: exit, start: "z", entry: #"{"event": {"name": "cart", "where": [{"attribute": "cartValue", "gt": true}]}}"#)),
                        "journey.entry.event.where[0]"
                    ),
                    // Re-entry sooner than 10 minutes; a saved segment the app has not.
                    (
                        Self.body(Self.graph(steps: exit, start: "z", entry: #"{"event": {"name": "cart"}, "reentryAfterMinutes": 5}"#)),
                        "journey.entry.reentryAfterMinutes"
                    ),
                    (Self.body(Self.graph(steps: exit, start: "z", entry: #"{"segment": "Nobody"}"#)), "journey.entry.segment"),
                    (
                        Self.body(Self.graph(steps: #""a": {"branch": {"segment": "Nobody"}, "yes": "z", "no": "z"}, \#(exit)"#)),
                        "journey.steps.a.branch.segment"
                    ),
                    // Push options a send cannot have.
                    (
                        Self.body(
                            Self.graph(steps: #""a": {"send": {"template": "welcome", "pushOptions": {"priority": 7}}, "next": "z"}, \#(exit)"#)),
                        "journey.steps.a.send.pushOptions.priority"
                    ),
                    // An unknown step kind, an unknown field, a wait in year 2999.
                    (Self.body(Self.graph(steps: #""a": {"teleport": {}}, \#(exit)"#)), "journey.steps.a"),
                    (Self.body(#"{"entry": {"event": {"name": "x"}}, "start": "z", "steps": {\#(exit)}, "colour": 1}"#), "journey.colour"),
                    (
                        Self.body(Self.graph(steps: #""a": {"wait": {"minutes": 511000000}, "next": "z"}, \#(exit)"#)),
                        "journey.steps.a.wait.minutes"
                    ),
                    (Self.body(name: "bad\\u0007", Self.graph(steps: exit, start: "z")), "name"),
                    (#"{"name": "Cart"}"#, "journey"),
                ]
                for (body, field) in cases {
                    let reply = try await api.request(.post, Self.path, key: api.marketingKey, body: body)
                    #expect(reply.status == .unprocessableContent, "\(field): \(reply.body)")
                    let named = reply.json["field"] as? String ?? ""
                    #expect(named.hasPrefix(field), "\(named) for \(field): \(reply.body)")
                }
                let stored = try await h.store.client.query("SELECT count(*) FROM journeys").collect().first?.decode(Int64.self)
                #expect(stored == 0)
                // The editor's check answers the same, and an app key may not touch journeys.
                let check = try await api.request(
                    .post, Self.path + "/validate", key: api.marketingKey,
                    body: #"{"journey": \#(Self.graph(steps: #""a": {"exit": {}}, "lost": {"exit": {}}"#))}"#)
                #expect(check.status == .unprocessableContent && check.json["field"] as? String == "journey.steps.lost")
                let forbidden = try await api.request(.get, Self.path, key: api.appKey)
                #expect(forbidden.status == .forbidden)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aJourneyGoesFromDraftToArchivedAndEventsSentToTheAPIEnterItsUsers(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await JourneyTests.registerUsers(h, 4)
            try await h.withAPI { api in
                let created = try await api.request(.post, Self.path, key: api.marketingKey, body: Self.body(JourneyTests.cart))
                #expect(created.status == .created && created.json["state"] as? String == "draft", "\(created.body)")
                #expect(created.json["version"] as? Int == 1 && created.json["liveVersion"] == nil)
                let taken = try await api.request(.post, Self.path, key: api.marketingKey, body: Self.body(JourneyTests.cart))
                #expect(taken.status == .conflict && taken.problemSlug == "journey-name-taken")
                // A draft takes no one.
                let events = "/v1/apps/\(EngineHarness.bundleID)/events"
                let cart = { (user: String) in
                    #"{"events": [{"type": "custom", "name": "cart_abandoned", "userID": "\#(user)", "occurredAt": "\#(RFC3339.format(Date()))", "properties": {"cartValue": 40, "cartItemCount": 2}}]}"#
                }
                #expect(try await api.request(.post, events, key: api.appKey, body: cart("user-0")).status == .ok)
                for (event, state) in [("activate", "active"), ("pause", "paused"), ("resume", "active")] {
                    let moved = try await api.request(.post, Self.path + "/Cart/\(event)", key: api.marketingKey)
                    #expect(moved.status == .ok && moved.json["state"] as? String == state, "\(moved.body)")
                }
                let again = try await api.request(.post, Self.path + "/Cart/activate", key: api.marketingKey)
                #expect(again.status == .conflict && again.problemSlug == "invalid-transition")
                for user in ["user-1", "user-2"] {
                    #expect(try await api.request(.post, events, key: api.appKey, body: cart(user)).status == .ok)
                }
                // A new version while active takes new entrants; those inside keep theirs.
                let v2 = try await api.request(
                    .patch, Self.path + "/Cart", key: api.marketingKey,
                    body: #"{"journey": \#(JourneyTests.cart.replacingOccurrences(of: "\"minutes\": 60", with: "\"minutes\": 30"))}"#)
                #expect(v2.status == .ok && v2.json["version"] as? Int == 2 && v2.json["liveVersion"] as? Int == 2, "\(v2.body)")
                #expect(try await api.request(.post, events, key: api.appKey, body: cart("user-3")).status == .ok)
                let versions = try await h.store.client.query(
                    "SELECT user_key, version FROM journey_entries ORDER BY user_key"
                ).collect().map { try $0.decode((String, Int32).self) }
                #expect(versions.map(\.0) == ["u:user-1", "u:user-2", "u:user-3"].filter { key in versions.contains { $0.0 == key } })
                #expect(versions.allSatisfy { $0.0 == "u:user-3" ? $0.1 == 2 : $0.1 == 1 }, "\(versions)")
                let first = try await api.request(.get, Self.path + "/Cart?version=1", key: api.marketingKey)
                #expect(first.status == .ok && first.json["shownVersion"] as? Int == 1)
                let report = try await api.request(.get, Self.path + "/Cart/report", key: api.marketingKey)
                #expect(report.status == .ok, "\(report.body)")
                let goal = report.json["goal"] as? [String: Any] ?? [:]
                #expect((goal["entrants"] as? Int ?? 0) + (goal["heldOut"] as? Int ?? 0) == versions.count)
                let steps = report.json["steps"] as? [[String: Any]] ?? []
                #expect(steps.first?["id"] as? String == "wait" && steps.count == 6, "\(report.body)")
                let list = try await api.request(.get, Self.path, key: api.marketingKey)
                #expect((list.json["journeys"] as? [[String: Any]])?.count == 1)
                let archived = try await api.request(.post, Self.path + "/Cart/archive", key: api.marketingKey)
                #expect(archived.json["state"] as? String == "archived")
                let frozen = try await api.request(
                    .patch, Self.path + "/Cart", key: api.marketingKey, body: #"{"description": "too late"}"#)
                #expect(frozen.status == .conflict)
                let unknown = try await api.request(.get, Self.path + "/Nope", key: api.marketingKey)
                #expect(unknown.status == .notFound && unknown.problemSlug == "unknown-journey")
            }
        }
    }

    /// The ledger route pages a journey's sends and narrows them by step, version, user and
    /// outcome; a bad filter is a 422 naming it.
    @Test(arguments: CitusTestDatabase.engines) func theLedgerIsPagedAndFilteredByStepUserAndOutcome(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await JourneyTests.registerUsers(h, 3)
            try await JourneyHarness.with(h) { j in
                _ = try await j.activeJourney(
                    "Hello",
                    #"{"entry": {"event": {"name": "signed_up"}}, "start": "hi", "steps": {"hi": {"send": {"template": "welcome", "pushOptions": {"threadID": "hello"}}, "next": "done"}, "done": {"exit": {}}}}"#
                )
                let now = Date()
                try await j.record((0..<3).map { JourneyHarness.custom("signed_up", user: "user-\($0)", at: now) }, at: now)
                try await j.runAll(at: now)
            }
            try await h.withAPI { api in
                let path = Self.path + "/Hello/deliveries"
                func rows(_ query: String) async throws -> (rows: [[String: Any]], next: String?) {
                    let reply = try await api.request(.get, path + query, key: api.marketingKey)
                    #expect(reply.status == .ok, "\(query): \(reply.body)")
                    return (reply.json["deliveries"] as? [[String: Any]] ?? [], reply.json["nextCursor"] as? String)
                }
                let all = try await rows("")
                #expect(all.rows.count == 3 && all.rows.allSatisfy { $0["outcome"] as? String == "accepted" && $0["step"] as? String == "hi" })
                #expect(all.rows.allSatisfy { ($0["tokenSuffix"] as? String)?.count == 8 })
                let one = try await rows("?userID=user-1")
                #expect(one.rows.count == 1 && one.rows.first?["userID"] as? String == "user-1", "\(one.rows)")
                #expect(try await rows("?step=hi&outcome=accepted&version=1").rows.count == 3)
                for query in ["?outcome=failed", "?step=done", "?userID=nobody", "?version=2"] {
                    #expect(try await rows(query).rows.isEmpty, "\(query)")
                }
                let first = try await rows("?limit=2")
                let next = try #require(first.next)
                let rest = try await rows("?limit=2&cursor=\(next)")
                #expect(first.rows.count == 2 && rest.rows.count == 1 && rest.next == nil)
                for (query, field) in [
                    ("?outcome=lost", "outcome"), ("?step=a.b", "step"), ("?version=0", "version"), ("?userID=a%00b", "userID"),
                    ("?limit=0", "limit"), ("?colour=red", "colour"),
                ] {
                    let reply = try await api.request(.get, path + query, key: api.marketingKey)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(query): \(reply.body)")
                }
            }
        }
    }
}
