import APNSCore
import Foundation
import HeraldCore
import Testing

/// A journey's graph read from JSON and checked before anything is stored.
struct JourneyDefinitionTests {
    static func parse(_ json: String) throws -> JourneyDefinition {
        try JourneyDefinition(json: try JSONDecoder().decode(PayloadValue.self, from: Data(json.utf8)))
    }

    /// The cart-abandonment journey: a reminder after an hour, a discount if it is not opened
    /// within a day, out on purchase.
    static let cart = """
        {"entry": {"event": {"name": "cart_abandoned", "where": [{"attribute": "cartValue", "gt": 20}]},
                   "reentryAfterMinutes": 1440, "limitPerUser": 3},
         "start": "wait",
         "steps": {
           "wait": {"wait": {"minutes": 60}, "next": "remind"},
           "remind": {"send": {"template": "cart-reminder", "variables": {"storeName": "Acme"}}, "next": "opened"},
           "opened": {"waitFor": {"opened": true}, "timeoutMinutes": 1440, "next": "done", "timeoutNext": "split"},
           "split": {"split": [{"weight": 1, "next": "discount"}, {"weight": 1, "next": "done"}]},
           "discount": {"send": {"template": "flash-sale"}, "next": "done"},
           "done": {"exit": {}}
         },
         "goal": {"event": {"name": "purchase"}},
         "holdoutPercent": 10}
        """

    @Test func theCartJourneyReadsAsWritten() throws {
        let journey = try Self.parse(Self.cart)
        #expect(journey.start == "wait" && journey.steps.count == 6 && journey.holdoutBasisPoints == 1000)
        #expect(journey.entry.reentryAfterSeconds == 86_400 && journey.entry.limitPerUser == 3)
        guard case .event(let entry) = journey.entry.trigger else {
            Issue.record("not an event entry")
            return
        }
        #expect(entry.name == "cart_abandoned" && entry.conditions == [.attribute("cartValue", .compare(.gt, .number(20)))])
        #expect(journey.steps["wait"] == .wait(seconds: 3600, next: "remind"))
        #expect(journey.steps["opened"] == .waitFor(.opened, timeoutSeconds: 86_400, next: "done", timeoutNext: "split"))
        #expect(journey.goal?.name == "purchase")
    }

    @Test func aLoopWithAWaitIsAllowed() throws {
        _ = try Self.parse(
            """
            {"entry": {"segment": "Lapsed"}, "start": "nudge",
             "steps": {"nudge": {"send": {"template": "welcome"}, "next": "pause"},
                       "pause": {"waitFor": {"event": {"name": "came_back"}}, "timeoutMinutes": 10080, "next": "out", "timeoutNext": "nudge"},
                       "out": {"exit": {}}}}
            """)
    }

    @Test func aSendsPushOptionsAreCheckedAsACampaignsAndKept() throws {
        func graph(_ options: String) -> String {
            #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"send": {"template": "welcome", "pushOptions": "#
                + options + #"}, "next": "b"}, "b": {"exit": {}}}}"#
        }
        let journey = try Self.parse(
            graph(
                #"{"priority": 5, "timeToLive": 3600, "collapseID": "cart", "interruptionLevel": "time-sensitive", "relevanceScore": 0.5, "custom": {"deepLink": "/cart"}}"#
            ))
        guard case .send(_, _, let options, _)? = journey.steps["a"] else {
            Issue.record("not a send")
            return
        }
        #expect(options.priority == .powerAware && options.timeToLive == 3600 && options.collapseID == "cart")
        #expect(options.interruptionLevel == .timeSensitive && options.relevanceScore == 0.5 && options.custom?["deepLink"] == "/cart")
        let refused: [(String, String)] = [
            (#"{"priority": 7}"#, "steps.a.send.pushOptions.priority"),
            (#"{"pushType": "voip"}"#, "steps.a.send.pushOptions.pushType"),
            (#"{"expiration": "2999-01-01T00:00:00Z"}"#, "steps.a.send.pushOptions.expiration"),
            (#"{"timeToLive": 99999999}"#, "steps.a.send.pushOptions.timeToLive"),
            (#"{"collapseID": "a\nb"}"#, "steps.a.send.pushOptions.collapseID"),
            (#"{"interruptionLevel": "loud"}"#, "steps.a.send.pushOptions.interruptionLevel"),
            (#"{"relevanceScore": 2}"#, "steps.a.send.pushOptions.relevanceScore"),
            (#"{"custom": {"aps": {}}}"#, "steps.a.send.pushOptions.custom.aps"),
            (#""fast""#, "steps.a.send.pushOptions"),
        ]
        for (options, field) in refused {
            do {
                _ = try Self.parse(graph(options))
                Issue.record("\(options) was accepted")
            } catch let error as ValidationError {
                #expect(error.field == field, "\(options): \(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func aBranchTestsASavedSegmentByName() throws {
        let journey = try Self.parse(
            #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"segment": "Lapsed buyers"}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
        )
        #expect(journey.steps["b"] == .branch(.savedSegment(name: "Lapsed buyers"), yes: "y", no: "n"))
        #expect(throws: ValidationError(field: "steps.b.branch.segment", reason: SavedSegment.nameProblem("bad\u{1}")!)) {
            try Self.parse(
                #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"segment": "bad\u0001"}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
            )
        }
    }

    @Test func graphsThatCannotRunAreRefusedNamingTheStep() {
        let cases: [(String, String)] = [
            // A cycle with no wait in it.
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"branch": {"opened": true}, "yes": "b", "no": "c"}, "b": {"send": {"template": "welcome"}, "next": "a"}, "c": {"exit": {}}}}"#,
                "steps.a"
            ),
            // A step nothing reaches.
            (#"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"exit": {}}, "lost": {"exit": {}}}}"#, "steps.lost"),
            // A path that never ends: a waiting loop with no way out.
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"wait": {"minutes": 5}, "next": "b"}, "b": {"send": {"template": "welcome"}, "next": "a"}}}"#,
                "steps.a"
            ),
            // A wait for an event without a timeout.
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"waitFor": {"opened": true}, "next": "b", "timeoutNext": "b"}, "b": {"exit": {}}}}"#,
                "steps.a.timeoutMinutes"
            ),
            // Split weights that are not positive.
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"split": [{"weight": 0, "next": "b"}, {"weight": 1, "next": "b"}]}, "b": {"exit": {}}}}"#,
                "steps.a.split[0].weight"
            ),
            // An event name with a control character.
            (#"{"entry": {"event": {"name": "cart\u0001"}}, "start": "b", "steps": {"b": {"exit": {}}}}"#, "entry.event.name"),
            // A property condition whose value has the wrong type.
            (
                #"{"entry": {"event": {"name": "cart", "where": [{"attribute": "cartValue", "gt": "lots"}]}}, "start": "b", "steps": {"b": {"exit": {}}}}"#,
                "entry.event.where[0].gt"
            ),
            (
                #"{"entry": {"event": {"name": "cart", "where": [{"language": "de"}]}}, "start": "b", "steps": {"b": {"exit": {}}}}"#,
                "entry.event.where[0]"
            ),
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"send": {"template": "welcome"}, "next": "nowhere"}}}"#,
                "steps.a.next"
            ),
            (#"{"entry": {"segment": "S"}, "start": "z", "steps": {"a": {"exit": {}}}}"#, "start"),
            (#"{"entry": {"segment": "S", "reentryAfterMinutes": 5}, "start": "a", "steps": {"a": {"exit": {}}}}"#, "entry.reentryAfterMinutes"),
            (#"{"entry": {}, "start": "a", "steps": {"a": {"exit": {}}}}"#, "entry"),
            (#"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"exit": {}, "wait": {"minutes": 1}}}}"#, "steps.a"),
            (#"{"entry": {"segment": "S"}, "start": "a b", "steps": {"a b": {"exit": {}}}}"#, "steps.a b"),
            (
                #"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"send": {"template": "Bad Name"}, "next": "b"}, "b": {"exit": {}}}}"#,
                "steps.a.send.template"
            ),
            (#"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"exit": {}}}, "holdoutPercent": 80}"#, "holdoutPercent"),
            (#"{"entry": {"segment": "S"}, "start": "a", "steps": {"a": {"exit": {}}}, "colour": 1}"#, "colour"),
        ]
        for (json, field) in cases {
            do {
                _ = try Self.parse(json)
                Issue.record("accepted \(json)")
            } catch let error as ValidationError {
                #expect(error.field == field, "\(json): \(error)")
            } catch {
                Issue.record("\(json): \(error)")
            }
        }
    }
}
