import APNSCore
import Foundation
import HeraldCore
import Testing

/// The journey's logic without I/O: what each step does for each cause, splits and holdouts as
/// pure functions of journey and user, and event conditions read as SQL reads them.
struct JourneyWalkTests {
    static let journey = try! JourneyDefinitionTests.parse(JourneyDefinitionTests.cart)
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func act(_ step: String, _ cause: JourneyWalk.Cause, after seconds: TimeInterval, roll: Double = 0.5) -> JourneyWalk.Action {
        JourneyWalk.act(journey, step: step, cause: cause, arrivedAt: start, now: start.addingTimeInterval(seconds), split: roll)
    }

    @Test func eachStepDoesWhatItsCauseAsks() {
        // A wait holds until its end, then goes on.
        #expect(Self.act("wait", .arrived, after: 0) == .wait(until: Self.start.addingTimeInterval(3600), target: nil))
        #expect(Self.act("wait", .arrived, after: 3600) == .go(next: "remind", path: "next"))
        // A send always sends (the engine skips a visit already in the ledger).
        if case .send(let template, _, _, let next) = Self.act("remind", .arrived, after: 0) {
            #expect(template == "cart-reminder" && next == "opened")
        } else {
            Issue.record("not a send")
        }
        // A waitFor waits for what it names, then times out.
        #expect(Self.act("opened", .arrived, after: 10) == .wait(until: Self.start.addingTimeInterval(86_400), target: .opened))
        #expect(Self.act("opened", .matched, after: 10) == .go(next: "done", path: "matched"))
        #expect(Self.act("opened", .arrived, after: 86_400) == .go(next: "split", path: "timedOut"))
        // A split follows its roll; an exit leaves.
        #expect(Self.act("split", .arrived, after: 0, roll: 0.2) == .go(next: "discount", path: "path1"))
        #expect(Self.act("split", .arrived, after: 0, roll: 0.7) == .go(next: "done", path: "path2"))
        #expect(Self.act("done", .arrived, after: 0) == .exit)
    }

    @Test func aBranchAsksThenGoesTheWayOfTheAnswer() throws {
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"opened": true}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
        )
        #expect(JourneyWalk.act(graph, step: "b", cause: .arrived, arrivedAt: Self.start, now: Self.start, split: 0) == .test(.opened))
        #expect(JourneyWalk.answer(graph, step: "b", yes: true) == .go(next: "y", path: "yes"))
        #expect(JourneyWalk.answer(graph, step: "b", yes: false) == .go(next: "n", path: "no"))
    }

    @Test func splitsAndHoldoutsArePureFunctionsOfJourneyAndUserInTheirShares() {
        #expect(JourneyWalk.pick([1, 3], roll: 0.24) == 0 && JourneyWalk.pick([1, 3], roll: 0.26) == 1)
        #expect(JourneyWalk.pick([1, 1], roll: 0.999_999) == 1)
        let users = (0..<20_000).map { "u:user-\($0)" }
        let rolls = users.map { JourneyWalk.roll(journeyID: 7, user: $0, salt: "split") }
        #expect(rolls == users.map { JourneyWalk.roll(journeyID: 7, user: $0, salt: "split") }, "the same every time")
        #expect(rolls.allSatisfy { (0..<1).contains($0) })
        let firstPath = rolls.filter { JourneyWalk.pick([1, 3], roll: $0) == 0 }.count
        #expect((4_600...5_400).contains(firstPath), "a quarter of 20,000: \(firstPath)")
        // Another journey draws apart.
        let other = users.map { JourneyWalk.roll(journeyID: 8, user: $0, salt: "split") }
        #expect(zip(rolls, other).filter { ($0 < 0.5) == ($1 < 0.5) }.count < 10_600)
        let held = users.filter { JourneyWalk.heldOut(journeyID: 7, user: $0, basisPoints: 1000) }.count
        #expect((1_800...2_200).contains(held), "10% of 20,000: \(held)")
        #expect(!users.contains { JourneyWalk.heldOut(journeyID: 7, user: $0, basisPoints: 0) })
    }

    @Test func eventConditionsReadPropertiesAsSegmentsReadAttributes() throws {
        func match(_ conditions: String, _ properties: [String: PayloadValue]) throws -> Bool {
            let graph = try JourneyDefinitionTests.parse(
                #"{"entry": {"event": {"name": "cart", "where": \#(conditions)}}, "start": "x", "steps": {"x": {"exit": {}}}}"#)
            guard case .event(let entry) = graph.entry.trigger else { return false }
            return entry.matches(name: "cart", properties: properties)
        }
        #expect(try match(#"[{"attribute": "value", "gt": 20}]"#, ["value": .double(20.5)]))
        #expect(try !match(#"[{"attribute": "value", "gt": 20}]"#, ["value": .string("30")]), "another type: unknown")
        #expect(try !match(#"[{"attribute": "value", "gt": 20}]"#, [:]))
        #expect(try match(#"[{"attribute": "value", "eq": 2}]"#, ["value": .double(2.0)]))
        #expect(try !match(#"[{"attribute": "items", "eq": "a"}]"#, ["items": .array([.string("a")])]))
        #expect(try !match(#"[{"attribute": "tier", "ne": "gold"}]"#, [:]), "ne of a missing property is unknown")
        #expect(try match(#"[{"attribute": "tier", "ne": "gold"}]"#, ["tier": .string("silver")]))
        #expect(try match(#"[{"attribute": "tier", "in": ["gold", "silver"]}]"#, ["tier": .string("silver")]))
        #expect(try match(#"[{"attribute": "sku", "startsWith": "SH-"}]"#, ["sku": .string("SH-12")]))
        #expect(try match(#"[{"attribute": "at", "lt": "2030-01-01T00:00:00Z"}]"#, ["at": .string("2029-05-01T10:00:00Z")]))
        #expect(try !match(#"[{"attribute": "at", "lt": "2030-01-01T00:00:00Z"}]"#, ["at": .string("soon")]))
        #expect(try match(#"[{"attribute": "coupon", "exists": false}]"#, [:]))
        // Another event's name never matches.
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"event": {"name": "cart"}}, "start": "x", "steps": {"x": {"exit": {}}}}"#)
        guard case .event(let entry) = graph.entry.trigger else { return }
        #expect(!entry.matches(name: "carts", properties: [:]))
    }
}

/// A wait for a window of the user's local time.
struct JourneyWindowTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func at(_ text: String) -> Date { RFC3339.parse(text)! }

    @Test func aWindowReleasesInsideItsNextOccurrenceInTheUsersZone() throws {
        let evening = try #require(try? QuietHours.parse("18:00-20:00").get())
        // 10:00 in Berlin (UTC+1 in January): today's window, 17:00-19:00 UTC.
        let morning = Self.at("2027-01-10T09:00:00Z")
        #expect(JourneyWalk.release(in: evening, after: morning, zone: Self.berlin, roll: 0) == Self.at("2027-01-10T17:00:00Z"))
        #expect(JourneyWalk.release(in: evening, after: morning, zone: Self.berlin, roll: 0.5) == Self.at("2027-01-10T18:00:00Z"))
        // Inside it (18:30 local): between now and its end.
        let inside = Self.at("2027-01-10T17:30:00Z")
        #expect(JourneyWalk.release(in: evening, after: inside, zone: Self.berlin, roll: 0.5) == Self.at("2027-01-10T18:15:00Z"))
        // After it (21:00 local): tomorrow's.
        #expect(
            JourneyWalk.release(in: evening, after: Self.at("2027-01-10T20:00:00Z"), zone: Self.berlin, roll: 0) == Self.at("2027-01-11T17:00:00Z"))
        // A window across midnight, entered just after midnight: the one still open.
        let night = try #require(try? QuietHours.parse("22:00-01:00").get())
        #expect(JourneyWalk.release(in: night, after: Self.at("2027-01-10T23:30:00Z"), zone: Self.berlin, roll: 1) == Self.at("2027-01-11T00:00:00Z"))
    }

    @Test func theWalkWaitsForTheWindowThenGoesOn() throws {
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"segment": "S"}, "start": "w", "steps": {"w": {"wait": {"window": "18:00-20:00"}, "next": "z"}, "z": {"exit": {}}}}"#)
        let arrived = Self.at("2027-01-10T09:00:00Z")
        let action = JourneyWalk.act(graph, step: "w", cause: .arrived, arrivedAt: arrived, now: arrived, split: 0.25, zone: Self.berlin)
        #expect(action == .wait(until: Self.at("2027-01-10T17:30:00Z"), target: nil))
        let later = JourneyWalk.act(
            graph, step: "w", cause: .arrived, arrivedAt: arrived, now: Self.at("2027-01-10T17:30:00Z"), split: 0.25, zone: Self.berlin)
        #expect(later == .go(next: "z", path: "next"))
        #expect(throws: ValidationError.self) {
            try JourneyDefinitionTests.parse(
                #"{"entry": {"segment": "S"}, "start": "w", "steps": {"w": {"wait": {"window": "18:00-18:00"}, "next": "z"}, "z": {"exit": {}}}}"#)
        }
    }
}
