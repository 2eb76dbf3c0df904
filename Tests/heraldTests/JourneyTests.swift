import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Testing

@testable import herald

/// Journeys on real PostgreSQL and the simulator with the clock injected (docs/journeys.md):
/// every user's path equals a reference walk of the graph over the same events.
@Suite(.serialized)
struct JourneyTests {
    static let cart = """
        {"entry": {"event": {"name": "cart_abandoned", "where": [{"attribute": "cartValue", "gt": 20}]}},
         "start": "wait",
         "steps": {
           "wait": {"wait": {"minutes": 60}, "next": "remind"},
           "remind": {"send": {"template": "cart-reminder", "variables": {"storeName": "Acme"}}, "next": "opened"},
           "opened": {"waitFor": {"opened": true}, "timeoutMinutes": 1440, "next": "done", "timeoutNext": "split"},
           "split": {"split": [{"weight": 1, "next": "discount"}, {"weight": 1, "next": "done"}]},
           "discount": {"send": {"template": "flash-sale", "variables": {"percentOff": 15, "endTime": "midnight"}}, "next": "done"},
           "done": {"exit": {}}
         },
         "goal": {"event": {"name": "purchase"}},
         "holdoutPercent": 10}
        """

    static func registerUsers(_ h: EngineHarness, _ count: Int) async throws {
        try await h.register(0..<count) { n in
            try DeviceRegistration(
                environment: .production, languages: ["en"], authorization: AuthorizationSettings(status: .authorized, alert: true),
                timeZone: "UTC", userID: "user-\(n)", attributes: ["firstName": "Ana"])
        }
    }

    @Test func theCartJourneyTakesEveryUserAlongThePathAReferenceWalkComputes() async throws {
        let users = 1_000
        try await EngineHarness.with { h in
            try await Self.registerUsers(h, users)
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney("Cart", Self.cart)
                let t0 = Date().addingTimeInterval(60).rounded()
                // Every user abandons a cart; a fifth of them a small one (no entry).
                try await j.record(
                    (0..<users).map { n in
                        JourneyHarness.custom("cart_abandoned", user: "user-\(n)", at: t0, ["cartValue": .int(n % 5 == 0 ? 10 : 50), "cartItemCount": .int(n % 4 + 1)])
                    }, at: t0)
                try await j.runAll(at: t0)
                #expect(try await j.sends(journey).isEmpty, "the first step waits an hour")
                try await j.runAll(at: t0.addingTimeInterval(3_599))
                #expect(try await j.sends(journey).isEmpty)
                try await j.runAll(at: t0.addingTimeInterval(3_601))
                // A third open the reminder two hours in; a seventh buy at three hours.
                let reminders = try await j.apnsIDs(journey, step: "remind")
                let opens = (0..<users).filter { $0 % 3 == 0 }.compactMap { n in
                    reminders["u:user-\(n)"].map { AppEvent(kind: .opened(apnsID: $0), occurredAt: t0.addingTimeInterval(7_200)) }
                }
                try await j.record(opens, at: t0.addingTimeInterval(7_200))
                try await j.runAll(at: t0.addingTimeInterval(7_200))
                try await j.record(
                    (0..<users).filter { $0 % 7 == 0 }.map {
                        JourneyHarness.custom("purchase", user: "user-\($0)", at: t0.addingTimeInterval(10_800))
                    }, at: t0.addingTimeInterval(10_800))
                try await j.runAll(at: t0.addingTimeInterval(10_800))
                // The reminders not opened time out a day after they were sent.
                try await j.runAll(at: t0.addingTimeInterval(3_601 + 86_399))
                #expect(try await j.sends(journey).values.allSatisfy { $0 == ["remind"] })
                try await j.runAll(at: t0.addingTimeInterval(3_601 + 86_400))

                // The reference walk of the same events.
                let entries = try await j.entries(journey)
                let sends = try await j.sends(journey)
                var expectedSends = 0
                for n in 0..<users {
                    let key = "u:user-\(n)"
                    guard n % 5 != 0 else {
                        #expect(entries[key] == nil, "user \(n) entered on a small cart")
                        continue
                    }
                    let found = try #require(entries[key]?.first)
                    #expect(entries[key]?.count == 1)
                    let bought = n % 7 == 0
                    if JourneyWalk.heldOut(journeyID: journey.id, user: key, basisPoints: 1000) {
                        #expect(found.outcome == "heldOut" && found.goal == bought && sends[key] == nil, "user \(n)")
                        continue
                    }
                    let expected: (outcome: String, sends: [String])
                    if n % 3 == 0 {
                        expected = ("exited", ["remind"])
                    } else if bought {
                        expected = ("goal", ["remind"])
                    } else if JourneyWalk.pick([1, 1], roll: JourneyWalk.roll(journeyID: journey.id, user: key, salt: "split")) == 0 {
                        expected = ("exited", ["remind", "discount"])
                    } else {
                        expected = ("exited", ["remind"])
                    }
                    expectedSends += expected.sends.count
                    #expect(found.outcome == expected.outcome && found.step == nil && found.goal == bought, "user \(n): \(found)")
                    #expect(sends[key] ?? [] == expected.sends, "user \(n): \(sends[key] ?? [])")
                }
                // The simulator got each send once, with the apns-id of its ledger row.
                let received = try h.received()
                #expect(received.count == expectedSends)
                #expect(Set(received.map(\.apnsID)).count == received.count)

                let report = try await h.store.journeys.report(journeyID: journey.id, version: nil)
                let entered = (0..<users).filter { $0 % 5 != 0 }.count
                #expect(report.entrants + report.heldOut == entered && report.inside == 0)
                let steps = Dictionary(uniqueKeysWithValues: report.steps.map { ($0.id, $0) })
                #expect(steps["wait"]?.entered == report.entrants)
                #expect(steps["remind"]?.deliveries["accepted"] == report.entrants)
                #expect(steps["remind"]?.opened == opens.count)
                let matched = steps["opened"]?.paths["matched"] ?? 0, timedOut = steps["opened"]?.paths["timedOut"] ?? 0
                let goals = steps["opened"]?.paths["goal"] ?? 0
                #expect(matched + timedOut + goals == report.entrants, "\(steps["opened"]!)")
                #expect(steps["split"]?.entered == timedOut)
                #expect((steps["split"]?.paths["path1"] ?? 0) == steps["discount"]?.entered)
                #expect(report.goals == goals + (0..<users).filter { n in
                    n % 5 != 0 && n % 7 == 0 && n % 3 == 0
                        && !JourneyWalk.heldOut(journeyID: journey.id, user: "u:user-\(n)", basisPoints: 1000)
                }.count)
            }
        }
    }
}

extension Date {
    fileprivate func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded()) }
}
