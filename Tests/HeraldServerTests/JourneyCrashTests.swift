import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// docs/journeys.md "Sending once" against the real binary: two `herald serve` walk a journey's
/// entrants, one is killed with SIGKILL mid-way; the other finishes. No user is lost; a user the
/// killed instance was sending to when it died may get the notification again, with the same
/// apns-id, and has one ledger row per device.
@Suite(.serialized) struct JourneyCrashTests {
    static let users = 2_000
    static let batchSize = 100
    static let concurrency = 2

    static func serve(_ h: EngineHarness) throws -> Process {
        try CrashRecoveryTests.serve(
            h, settings: ["HERALD_JOURNEY_BATCH_SIZE": String(batchSize), "HERALD_JOURNEY_CONCURRENCY": String(concurrency)])
    }

    func count(_ h: EngineHarness, _ sql: String) async throws -> Int {
        Int(try await h.store.client.query(PostgresQuery(unsafeSQL: sql)).collect().first?.decode(Int64.self) ?? 0)
    }

    @Test(arguments: CitusTestDatabase.engines) func aKilledInstanceOfTwoLosesNoUserAndSendsNoneTwiceButWithTheSameID(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await JourneyTests.registerUsers(h, Self.users)
            let definition = try JSONDecoder().decode(
                PayloadValue.self,
                from: Data(
                    #"{"entry": {"event": {"name": "cart_abandoned"}}, "start": "remind", "steps": {"remind": {"send": {"template": "cart-reminder"}, "next": "done"}, "done": {"exit": {}}}}"#
                        .utf8))
            guard
                case .saved = try await h.store.journeys.create(
                    appID: h.app.id, name: "Now", description: nil, definition: definition, actor: "test")
            else { throw JourneyTestFailure("not saved") }
            let first = try Self.serve(h)
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
            let second = try Self.serve(h)
            defer {
                if second.isRunning {
                    kill(second.processIdentifier, SIGTERM)
                    second.waitUntilExit()
                }
            }
            // The instances start (the schema is current); then the journey opens and the users enter.
            try await Task.sleep(for: .seconds(3))
            guard
                case .saved = try await h.store.journeys.transition(
                    appID: h.app.id, name: "Now", event: .activate, actor: "test", now: Date())
            else { throw JourneyTestFailure("not activated") }
            let now = Date()
            for start in stride(from: 0, to: Self.users, by: 1000) {
                _ = try await h.store.events.record(
                    appID: h.app.id,
                    events: (start..<start + 1000).map {
                        AppEvent(
                            kind: .custom(name: "cart_abandoned", properties: ["cartItemCount": 2]), occurredAt: now,
                            userID: "user-\($0)", eventID: "cart-\($0)")
                    })
            }
            try await h.waitFor("some users to be sent to", timeout: .seconds(420)) {
                try CrashRecoveryTests.running(first)
                try CrashRecoveryTests.running(second)
                return try await count(h, "SELECT count(*) FROM journey_deliveries") >= 300
            }
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(first.terminationReason == .uncaughtSignal)
            let atCrash = try await count(h, "SELECT count(*) FROM journey_deliveries")
            #expect(atCrash < Self.users, "every user was sent to before the kill; the test proves nothing")
            try await h.waitFor("every user to leave the journey", timeout: .seconds(420)) {
                try await count(h, "SELECT count(*) FROM journey_entries WHERE step IS NOT NULL") == 0
            }
            // The ledger: one accepted row per user, each entry left by its exit.
            #expect(try await count(h, "SELECT count(*) FROM journey_entries WHERE outcome = 'exited'") == Self.users)
            #expect(try await count(h, "SELECT count(*) FROM journey_deliveries WHERE outcome = 'accepted'") == Self.users)
            #expect(try await count(h, "SELECT count(DISTINCT entry_id) FROM journey_deliveries") == Self.users)
            // The simulator: every user at least once; twice only with the same apns-id, and no
            // more of them than the killed instance was walking at once (its batches in flight).
            let received = try h.received()
            let byToken = Dictionary(grouping: received, by: \.token)
            #expect(byToken.count == Self.users)
            let twice = byToken.values.filter { $0.count > 1 }
            #expect(twice.allSatisfy { $0.count == 2 && Set($0.map(\.apnsID)).count == 1 }, "\(twice.map { $0.map(\.apnsID) })")
            #expect(twice.count <= Self.batchSize * Self.concurrency, "\(twice.count) users were sent twice")
        }
    }
}
