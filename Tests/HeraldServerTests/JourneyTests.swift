import APNSCore
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTestSupport
import Testing

@testable import HeraldSending
@testable import HeraldServer

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
        let users = 10_000
        try await EngineHarness.with { h in
            try await Self.registerUsers(h, users)
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney("Cart", Self.cart)
                let t0 = Date().addingTimeInterval(60).rounded()
                // Every user abandons a cart; a fifth of them a small one (no entry).
                try await j.record(
                    (0..<users).map { n in
                        JourneyHarness.custom(
                            "cart_abandoned", user: "user-\(n)", at: t0, ["cartValue": .int(n % 5 == 0 ? 10 : 50), "cartItemCount": .int(n % 4 + 1)])
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
                let matched = steps["opened"]?.paths["matched"] ?? 0
                let timedOut = steps["opened"]?.paths["timedOut"] ?? 0
                let goals = steps["opened"]?.paths["goal"] ?? 0
                #expect(matched + timedOut + goals == report.entrants, "\(steps["opened"]!)")
                #expect(steps["split"]?.entered == timedOut)
                #expect((steps["split"]?.paths["path1"] ?? 0) == steps["discount"]?.entered)
                #expect(
                    report.goals == goals
                        + (0..<users).filter { n in
                            n % 5 != 0 && n % 7 == 0 && n % 3 == 0
                                && !JourneyWalk.heldOut(journeyID: journey.id, user: "u:user-\(n)", basisPoints: 1000)
                        }.count)
            }
        }
    }

    /// A loop: a welcome, then each week a nudge until the user comes back (a waitFor with a
    /// property condition), split in two for the nudge's wording.
    static let loop = """
        {"entry": {"event": {"name": "signed_up"}, "reentryAfterMinutes": 60, "limitPerUser": 2},
         "start": "split",
         "steps": {
           "split": {"split": [{"weight": 1, "next": "a"}, {"weight": 1, "next": "b"}]},
           "a": {"send": {"template": "welcome"}, "next": "back"},
           "b": {"send": {"template": "flash-sale", "variables": {"percentOff": 5, "endTime": "soon"}}, "next": "back"},
           "back": {"waitFor": {"event": {"name": "visit", "where": [{"attribute": "pages", "gte": 3}]}},
                    "timeoutMinutes": 10080, "next": "done", "timeoutNext": "done"},
           "done": {"exit": {}}
         },
         "goal": {"event": {"name": "purchase"}}}
        """

    @Test(arguments: CitusTestDatabase.engines) func splitsAreStickyAcrossReentryWhichFollowsItsIntervalAndLimit(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await Self.registerUsers(h, 40)
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney("Loop", Self.loop)
                let t0 = Date().addingTimeInterval(60).rounded()
                let users = (0..<40).map { "user-\($0)" }
                // Each user signs up, comes back (3 pages: the waitFor ends) and signs up again
                // 30 minutes later (too soon), then 61 minutes after the first entry (allowed),
                // then once more (over the limit of two).
                var moment = t0
                for round in 0..<4 {
                    moment = t0.addingTimeInterval([0, 1_800, 3_660, 7_400][round])
                    try await j.record(users.map { JourneyHarness.custom("signed_up", user: $0, at: moment) }, at: moment)
                    try await j.runAll(at: moment)
                    let visit = moment.addingTimeInterval(60)
                    try await j.record(
                        users.map { JourneyHarness.custom("visit", user: $0, at: visit, ["pages": .int(round == 0 ? 2 : 3)]) },
                        at: visit)
                    try await j.runAll(at: visit)
                    if round == 0 {
                        // Two pages do not match: still waiting; a third visit with three does.
                        #expect(try await j.entries(journey).values.allSatisfy { $0.count == 1 && $0[0].step == "back" })
                        try await j.record(
                            users.map { JourneyHarness.custom("visit", user: $0, at: visit, ["pages": .int(4)]) }, at: visit)
                        try await j.runAll(at: visit)
                    }
                }
                let entries = try await j.entries(journey)
                let sends = try await j.sends(journey)
                var paths = Set<String>()
                for user in users {
                    let key = "u:\(user)"
                    #expect(entries[key]?.count == 2, "entered at 0 and 61 minutes only: \(entries[key] ?? [])")
                    #expect(entries[key]?.allSatisfy { $0.outcome == "exited" } == true)
                    let sent = sends[key] ?? []
                    #expect(sent.count == 2 && sent[0] == sent[1], "the same path both times: \(sent)")
                    paths.insert(sent.first ?? "")
                }
                #expect(paths == ["a", "b"], "both paths are taken by someone")
                let report = try await h.store.journeys.report(journeyID: journey.id, version: nil)
                let back = try #require(report.steps.first { $0.id == "back" })
                #expect(back.paths["matched"] == 80 && back.paths["timedOut"] == nil)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func theGoalEndsAnEntryMidWaitPauseHoldsEveryoneAndAUserWithoutDevicesMovesOn(
        onCluster: Bool
    ) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await Self.registerUsers(h, 10)
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney(
                    "Cart", Self.cart.replacingOccurrences(of: "\"holdoutPercent\": 10", with: "\"holdoutPercent\": 0"))
                let t0 = Date().addingTimeInterval(60).rounded()
                // Ten users with devices and one (ghost) without any.
                let users = (0..<10).map { "user-\($0)" } + ["ghost"]
                try await j.record(
                    users.map { JourneyHarness.custom("cart_abandoned", user: $0, at: t0, ["cartValue": 30, "cartItemCount": 1]) }, at: t0)
                try await j.runAll(at: t0)
                // Users 0 and 1 buy during the first wait: they leave with the goal, nothing sent.
                let buy = t0.addingTimeInterval(600)
                try await j.record(["user-0", "user-1"].map { JourneyHarness.custom("purchase", user: $0, at: buy) }, at: buy)
                // Paused: nothing moves, though the hour has come.
                guard
                    case .saved(let paused) = try await h.store.journeys.transition(
                        appID: h.app.id, name: "Cart", event: .pause, actor: "test", now: buy)
                else { throw JourneyTestFailure("not paused") }
                #expect(paused.state == .paused)
                try await j.runAll(at: t0.addingTimeInterval(7_200))
                #expect(try await j.sends(journey).isEmpty)
                // A new event enters no one while paused.
                try await j.record([JourneyHarness.custom("cart_abandoned", user: "user-9", at: buy, ["cartValue": 99])], at: buy)
                #expect(try await j.entries(journey)["u:user-9"]?.count == 1)
                guard
                    case .saved = try await h.store.journeys.transition(
                        appID: h.app.id, name: "Cart", event: .resume, actor: "test", now: buy)
                else { throw JourneyTestFailure("not resumed") }
                try await j.runAll(at: t0.addingTimeInterval(7_200))
                let entries = try await j.entries(journey)
                let sends = try await j.sends(journey)
                #expect(entries["u:user-0"]?.first?.outcome == "goal" && entries["u:user-0"]?.first?.goal == true)
                #expect(sends["u:user-0"] == nil && sends["u:user-1"] == nil)
                #expect((2..<10).allSatisfy { sends["u:user-\($0)"] == ["remind"] })
                // The ghost moved on to wait for an open that cannot come, and the move says why.
                #expect(entries["u:ghost"]?.first?.step == "opened")
                let report = try await h.store.journeys.report(journeyID: journey.id, version: nil)
                let remind = try #require(report.steps.first { $0.id == "remind" })
                #expect(remind.notSent == ["noDevices": 1] && remind.deliveries["accepted"] == 8)
                let wait = try #require(report.steps.first { $0.id == "wait" })
                #expect(wait.paths["goal"] == 2 && wait.paths["next"] == 9)
                #expect(report.goals == 2 && report.inside == 9)
                // Archiving ends everyone's entry.
                guard
                    case .saved = try await h.store.journeys.transition(
                        appID: h.app.id, name: "Cart", event: .archive, actor: "test", now: buy)
                else { throw JourneyTestFailure("not archived") }
                #expect(try await j.entries(journey).values.allSatisfy { $0.allSatisfy { $0.step == nil } })
            }
        }
    }

    /// A zone where the clock now reads `hour` o'clock (Etc/GMT zones span UTC-12 to UTC+14).
    static func zone(whereItIs hour: Int, at moment: Date = Date()) -> String {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        var offset = ((hour - utc.component(.hour, from: moment)) % 24 + 24) % 24
        if offset > 14 { offset -= 24 }
        return offset == 0 ? "Etc/GMT" : offset > 0 ? "Etc/GMT-\(offset)" : "Etc/GMT+\(-offset)"
    }

    /// One batch holds two journeys' sends to the same user (each takes its own frequency-cap
    /// place: one goes, the other is capped) and a user whose only device is inside quiet
    /// hours (both sends wait, at their step, until the hours end).
    @Test(arguments: CitusTestDatabase.engines) func aBatchsSendsObeyCapsPerSendAndHoldUsersInsideQuietHours(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            let quiet = QuietHours(start: 22 * 60, end: 8 * 60)
            let zones = [Self.zone(whereItIs: 14), Self.zone(whereItIs: 3)]
            try await h.register(0..<2) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"], authorization: AuthorizationSettings(status: .authorized, alert: true),
                    timeZone: zones[n], userID: "user-\(n)", attributes: ["firstName": "Ana"])
            }
            _ = try await h.store.apps.updateSettings(
                appID: h.app.id,
                settings: AppSettings(defaultTimeZone: "UTC", quietHours: quiet, frequencyCaps: [FrequencyCap(limit: 1, window: 86_400)]),
                actor: "test")
            try await JourneyHarness.with(h) { j in
                let graph =
                    #"{"entry": {"event": {"name": "signed_up"}}, "start": "hello", "steps": {"hello": {"send": {"template": "welcome"}, "next": "done"}, "done": {"exit": {}}}}"#
                let first = try await j.activeJourney("First", graph)
                let second = try await j.activeJourney("Second", graph)
                let t0 = Date()
                try await j.record(["user-0", "user-1"].map { JourneyHarness.custom("signed_up", user: $0, at: t0) }, at: t0)
                try await j.runAll(at: t0)
                // User 0: one journey's send went, the other's was capped; both moved on.
                var outcomes = [String]()
                for journey in [first, second] {
                    let rows = try await h.store.client.query(
                        "SELECT outcome || coalesce('/' || reason, '') FROM journey_deliveries WHERE journey_id = \(journey.id)"
                    ).collect()
                    outcomes += try rows.map { try $0.decode(String.self) }
                    #expect(try await j.entries(journey)["u:user-0"]?.first?.outcome == "exited")
                }
                #expect(outcomes.sorted() == ["accepted", "skipped/frequencyCap"], "\(outcomes)")
                #expect(try h.received().count == 1)
                // User 1: nothing sent or recorded; both entries wait at the send until 08:00 there.
                let end = quiet.end(after: t0, in: TimeZone(identifier: zones[1])!)
                for journey in [first, second] {
                    let rows = try await h.store.client.query(
                        """
                        SELECT step, due_at FROM journey_entries WHERE journey_id = \(journey.id) AND user_key = 'u:user-1'
                        """
                    ).collect()
                    let (step, due) = try #require(rows.first).decode((String?, Date?).self)
                    #expect(step == "hello" && due.map { abs($0.timeIntervalSince(end)) < 1 } == true, "\(String(describing: due)) \(end)")
                }
                let report = try await h.store.journeys.report(journeyID: first.id, version: nil)
                #expect(report.inside == 1)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func anEntryClaimedByAnEngineThatDiedIsTakenOverWithoutASecondSend(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await Self.registerUsers(h, 3)
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney(
                    "Now",
                    """
                    {"entry": {"event": {"name": "cart_abandoned"}}, "start": "remind",
                     "steps": {"remind": {"send": {"template": "cart-reminder"}, "next": "done"}, "done": {"exit": {}}}}
                    """)
                let t0 = Date().addingTimeInterval(60).rounded()
                try await j.record(
                    (0..<3).map { JourneyHarness.custom("cart_abandoned", user: "user-\($0)", at: t0, ["cartItemCount": 2]) }, at: t0)
                // An engine claims all three, sends to user-0 (its ledger row written) and to
                // user-1 (cut short before its row), then dies before saving either.
                let dead = try await h.store.journeyWork.claim(owner: "dead", limit: 10, leaseSeconds: 30, now: t0)
                #expect(dead.count == 3)
                let senders = APNSSenderDirectory(configuration: h.configuration, apps: h.store.apps, logger: h.logs.logger())
                let sender = DirectSender(
                    devices: h.store.devices, templates: h.store.templates, senders: senders, ledger: h.store.directSends,
                    logger: h.logs.logger())
                for lease in dead where lease.userID != "user-2" {
                    var request = DirectSendRequest(
                        app: h.app, audience: .userID(lease.userID!),
                        content: .template(name: "cart-reminder", version: nil, localization: .server, variables: ["cartItemCount": 2]),
                        ledger: .journey(JourneySendKey(journeyID: journey.id, version: 1, entryID: lease.entryID, visit: 0, step: "remind")),
                        actor: "journey")
                    request.apnsIDSeed = "journey:\(lease.entryID):0"
                    _ = try await sender.send(request)
                    if lease.userID == "user-1" {
                        try await h.store.client.query("DELETE FROM journey_deliveries WHERE entry_id = \(lease.entryID)")
                    }
                }
                await senders.shutdown()
                // While the lease holds, no one else takes them.
                try await j.runAll(at: t0.addingTimeInterval(29))
                #expect(try await j.entries(journey).values.allSatisfy { $0[0].step == "remind" })
                try await j.runAll(at: t0.addingTimeInterval(31))
                let entries = try await j.entries(journey)
                #expect(entries.values.allSatisfy { $0.count == 1 && $0[0].outcome == "exited" })
                let received = try h.received()
                // user-0 once; user-1 twice with the same apns-id (the send cut short is done
                // again, as APNs would see a retry); user-2 once.
                #expect(received.count == 4, "\(received.map(\.token))")
                let byToken = Dictionary(grouping: received, by: \.token)
                #expect(byToken[EngineHarness.token(0).hex]?.count == 1 && byToken[EngineHarness.token(2).hex]?.count == 1)
                let twice = try #require(byToken[EngineHarness.token(1).hex])
                #expect(twice.count == 2 && twice[0].apnsID == twice[1].apnsID)
                #expect(try await j.sends(journey).values.map(\.count).sorted() == [1, 1, 1], "one ledger row each")
            }
        }
    }
}

extension Date {
    /// To the whole second, as PostgreSQL keeps it to the microsecond.
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded()) }
}
