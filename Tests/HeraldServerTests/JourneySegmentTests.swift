import APNSCore
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTestSupport
import NIOCore
import Testing

@testable import HeraldServer

/// Entry on a saved segment (docs/journeys.md "Entry"): each pass enters the users whose devices
/// match, once, or again after the re-entry interval.
@Suite(.serialized)
struct JourneySegmentEntryTests {
    /// Users 0..<count speaking German (the even ones) or French, and a saved segment of the
    /// German speakers.
    static func registerSpeakers(_ h: EngineHarness, _ count: Int, segment: String) async throws {
        try await h.register(0..<count) { n in
            try DeviceRegistration(
                environment: .production, languages: [n % 2 == 0 ? "de" : "fr"],
                authorization: AuthorizationSettings(status: .authorized, alert: true), timeZone: "UTC",
                userID: "user-\(n)", attributes: ["firstName": "Ana"])
        }
        guard
            case .saved = try await h.store.segments.create(
                appID: h.app.id, name: segment, description: nil, segment: .language(LanguageTag("de")!, firstOnly: false),
                actor: "test")
        else { throw JourneyTestFailure("segment not saved") }
    }

    @Test(arguments: CitusTestDatabase.engines) func usersMatchingTheSegmentEnterOnceThenAgainAfterTheInterval(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            // Users 0-9, German for the even ones.
            try await Self.registerSpeakers(h, 10, segment: "German")
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney(
                    "Welcome",
                    #"{"entry": {"segment": "German", "reentryAfterMinutes": 60}, "start": "hello", "steps": {"hello": {"send": {"template": "welcome"}, "next": "done"}, "done": {"exit": {}}}}"#
                )
                let t0 = Date().addingTimeInterval(60)
                #expect(try await h.store.journeyWork.enterSegments(now: t0) == 5)
                #expect(try await h.store.journeyWork.enterSegments(now: t0) == 0, "those inside do not enter twice")
                try await j.runAll(at: t0)
                #expect(try await j.sends(journey).count == 5)
                // Out now, but the interval has not passed; after it, they enter again.
                #expect(try await h.store.journeyWork.enterSegments(now: t0.addingTimeInterval(1_800)) == 0)
                #expect(try await h.store.journeyWork.enterSegments(now: t0.addingTimeInterval(3_601)) == 5)
                let entries = try await j.entries(journey)
                #expect(entries.keys.sorted() == (0..<10).filter { $0 % 2 == 0 }.map { "u:user-\($0)" })
                #expect(entries.values.allSatisfy { $0.count == 2 })
            }
        }
    }

    /// Entry on a segment built from events: the users who did `cart_abandoned` this week, as a
    /// user (the event names no device) or on one of their devices. On a Citus cluster the
    /// events are looked up as a set (docs/scaling.md, "Segments built from events").
    @Test(arguments: CitusTestDatabase.engines) func aSegmentBuiltFromEventsLetsInTheUsersWhoDidIt(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<6) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"], authorization: AuthorizationSettings(status: .authorized, alert: true),
                    timeZone: "UTC", userID: "user-\(n)", attributes: ["firstName": "Ana"])
            }
            // user-1 as a user, user-3's device, user-5 as a user a month ago.
            try await h.store.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, user_id, name)
                VALUES (\(h.app.id), 'custom', sha256('u1'), now() - interval '1 day', 'user-1', 'cart_abandoned'),
                       (\(h.app.id), 'custom', sha256('u5'), now() - interval '30 days', 'user-5', 'cart_abandoned')
                """)
            try await h.store.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, device_id, user_id, name)
                SELECT app_id, 'custom', sha256(token), now() - interval '1 day', id, user_id, 'cart_abandoned' FROM devices
                WHERE app_id = \(h.app.id) AND token = \(ByteBuffer(bytes: EngineHarness.token(3).bytes))
                """)
            let segment = try Segment(json: try JSONReader.parse(Array(#"{"event": {"name": "cart_abandoned", "withinDays": 7}}"#.utf8)))
            guard
                case .saved = try await h.store.segments.create(
                    appID: h.app.id, name: "Abandoned", description: nil, segment: segment, actor: "test")
            else { throw JourneyTestFailure("segment not saved") }
            try await JourneyHarness.with(h) { j in
                let journey = try await j.activeJourney(
                    "Come back",
                    #"{"entry": {"segment": "Abandoned"}, "start": "hello", "steps": {"hello": {"send": {"template": "welcome"}, "next": "done"}, "done": {"exit": {}}}}"#
                )
                #expect(try await h.store.journeyWork.enterSegments(now: Date().addingTimeInterval(60)) == 2)
                #expect(try await j.entries(journey).keys.sorted() == ["u:user-1", "u:user-3"])
            }
        }
    }

    /// A branch on a saved segment reads its latest version when the user comes to it: a new
    /// version saved after the journey was activated counts, and an archived one sends
    /// everyone the `no` way.
    @Test(arguments: CitusTestDatabase.engines) func aBranchOnASavedSegmentFollowsItsLatestVersion(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await Self.registerSpeakers(h, 6, segment: "Speakers")
            try await JourneyHarness.with(h) { j in
                let graph = """
                    {"entry": {"event": {"name": "signed_up"}, "reentryAfterMinutes": 10}, "start": "which",
                     "steps": {"which": {"branch": {"segment": "Speakers"}, "yes": "in", "no": "out"},
                               "in": {"exit": {}}, "out": {"exit": {}}}}
                    """
                let journey = try await j.activeJourney("Fork", graph)
                func round(_ at: Date) async throws -> [String: String] {
                    try await j.record((0..<6).map { JourneyHarness.custom("signed_up", user: "user-\($0)", at: at) }, at: at)
                    try await j.runAll(at: at)
                    let rows = try await h.store.client.query(
                        """
                        SELECT e.user_key, m.next FROM journey_moves m JOIN journey_entries e ON e.id = m.entry_id
                        WHERE m.journey_id = \(journey.id) AND m.step = 'which' AND e.entered_at = \(at)
                        """
                    ).collect()
                    return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, String).self) })
                }
                let t0 = Date().rounded()
                let first = try await round(t0)
                #expect(first.count == 6)
                #expect((0..<6).allSatisfy { first["u:user-\($0)"] == ($0 % 2 == 0 ? "in" : "out") }, "\(first)")
                // A new version: French speakers. The journey's next entrants are asked that.
                guard
                    case .saved = try await h.store.segments.update(
                        appID: h.app.id, name: "Speakers", segment: .language(LanguageTag("fr")!, firstOnly: false), description: nil,
                        actor: "test")
                else { throw JourneyTestFailure("segment not updated") }
                let second = try await round(t0.addingTimeInterval(700))
                #expect((0..<6).allSatisfy { second["u:user-\($0)"] == ($0 % 2 == 1 ? "in" : "out") }, "\(second)")
                // Archived: no one is in it.
                #expect(try await h.store.segments.archive(appID: h.app.id, name: "Speakers", actor: "test"))
                let third = try await round(t0.addingTimeInterval(1_400))
                #expect(third.count == 6 && third.values.allSatisfy { $0 == "out" }, "\(third)")
            }
        }
    }
}
