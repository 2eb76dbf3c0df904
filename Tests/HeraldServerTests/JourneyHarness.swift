import APNSCore
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import HeraldTestSupport
import Testing

@testable import HeraldSending
@testable import HeraldServer

/// A journey engine on an ``EngineHarness``, driven by hand with the clock given to each call.
struct JourneyHarness {
    let h: EngineHarness
    let engine: JourneyEngine

    static func with(_ h: EngineHarness, owner: String = "journeys-1", _ body: (JourneyHarness) async throws -> Void) async throws {
        let senders = APNSSenderDirectory(configuration: h.configuration, apps: h.store.apps, logger: h.logs.logger())
        let engine = JourneyEngine(
            configuration: DeliveryConfiguration(owner: owner), work: h.store.journeyWork, apps: h.store.apps,
            sender: DirectSender(
                devices: h.store.devices, templates: h.store.templates, senders: senders, ledger: h.store.directSends,
                logger: h.logs.logger()),
            batchSize: 500, concurrency: 2, logger: h.logs.logger())
        do {
            try await body(JourneyHarness(h: h, engine: engine))
        } catch {
            await senders.shutdown()
            throw error
        }
        await senders.shutdown()
    }

    /// Saves and activates a journey from its JSON.
    func activeJourney(_ name: String, _ json: String) async throws -> Journey {
        let definition = try JSONDecoder().decode(PayloadValue.self, from: Data(json.utf8))
        guard
            case .saved = try await h.store.journeys.create(
                appID: h.app.id, name: name, description: nil, definition: definition, actor: "test")
        else { throw JourneyTestFailure("not saved") }
        guard
            case .saved(let journey) = try await h.store.journeys.transition(
                appID: h.app.id, name: name, event: .activate, actor: "test", now: Date())
        else { throw JourneyTestFailure("not activated") }
        return journey
    }

    /// Walks every entry due at `now` until none is.
    func runAll(at now: Date) async throws {
        while try await engine.runDue(now: now) > 0 {}
    }

    func record(_ events: [AppEvent], at now: Date) async throws {
        for start in stride(from: 0, to: events.count, by: 500) {
            _ = try await h.store.events.record(appID: h.app.id, events: Array(events[start..<min(start + 500, events.count)]), now: now)
        }
    }

    static func custom(_ name: String, user: String, at: Date, _ properties: [String: PayloadValue] = [:]) -> AppEvent {
        AppEvent(kind: .custom(name: name, properties: properties), occurredAt: at, userID: user, eventID: UUID().uuidString)
    }

    /// Each user's entries: user key → [(outcome, step, goal reached)], by entry number.
    func entries(_ journey: Journey) async throws -> [String: [(outcome: String?, step: String?, goal: Bool)]] {
        var found = [String: [(outcome: String?, step: String?, goal: Bool)]]()
        let rows = try await h.store.client.query(
            """
            SELECT user_key, outcome, step, goal_at IS NOT NULL FROM journey_entries
            WHERE journey_id = \(journey.id) ORDER BY user_key, entry_number
            """)
        for try await (key, outcome, step, goal) in rows.decode((String, String?, String?, Bool).self) {
            found[key, default: []].append((outcome, step, goal))
        }
        return found
    }

    /// The steps that sent to each user, in order: user key → step IDs (one per device row).
    func sends(_ journey: Journey) async throws -> [String: [String]] {
        var found = [String: [String]]()
        let rows = try await h.store.client.query(
            """
            SELECT e.user_key, d.step FROM journey_deliveries d JOIN journey_entries e ON e.id = d.entry_id
            WHERE d.journey_id = \(journey.id) AND d.outcome = 'accepted' ORDER BY e.user_key, d.id
            """)
        for try await (key, step) in rows.decode((String, String).self) { found[key, default: []].append(step) }
        return found
    }

    /// The apns-ids of the accepted sends of a step, by user key.
    func apnsIDs(_ journey: Journey, step: String) async throws -> [String: UUID] {
        var found = [String: UUID]()
        let rows = try await h.store.client.query(
            """
            SELECT e.user_key, d.apns_id FROM journey_deliveries d JOIN journey_entries e ON e.id = d.entry_id
            WHERE d.journey_id = \(journey.id) AND d.step = \(step) AND d.outcome = 'accepted'
            """)
        for try await (key, apnsID) in rows.decode((String, UUID).self) { found[key] = apnsID }
        return found
    }
}

struct JourneyTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
