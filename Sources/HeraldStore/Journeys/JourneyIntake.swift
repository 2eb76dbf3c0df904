import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// What the app's events do to its journeys (docs/journeys.md "Events"), in the transaction
/// that stores them, so an event is never stored without its effect nor applied twice: a goal
/// event ends the entries it is the goal of, an event or an open wakes the entries waiting for
/// it (due at once, and a NOTIFY wakes the engines), and an entry event enters its users.
enum JourneyIntake {
    static let channel = "herald_journeys"

    /// One stored event, with whom it is about.
    struct Event {
        var name: String?
        var properties: [String: PayloadValue]
        var apnsID: UUID?
        var userKey: String?
        var userID: String?
        var deviceID: Int64?
        var occurredAt: Date
    }

    /// A user's key in journeys: the user ID, or the device for a device with no user.
    static func userKey(userID: String?, deviceID: Int64?) -> String? {
        if let userID, !userID.isEmpty { return "u:\(userID)" }
        return deviceID.map { "d:\($0)" }
    }

    /// Applies the events; true when an entry became due (the engines were notified).
    static func apply(
        _ events: [Event], appID: Int64, now: Date, definitions: JourneyDefinitions, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        guard !events.isEmpty else { return false }
        var woke = try await wakeOpened(events.compactMap(\.apnsID), appID: appID, now: now, on: connection, logger: logger)
        let named = events.filter { $0.name != nil && $0.userKey != nil }
        if !named.isEmpty {
            let journeys = try await connection.query(
                """
                SELECT id, live_version, entry_event, state = 'active' FROM journeys
                WHERE app_id = \(appID) AND state IN ('active', 'paused')
                """, logger: logger
            ).collect().map { try $0.decode((Int64, Int32?, String?, Bool).self) }
            guard !journeys.isEmpty else { return woke }
            let keys = Array(Set(named.compactMap(\.userKey)))
            try await reachGoals(named, keys: keys, appID: appID, now: now, definitions: definitions, on: connection, logger: logger)
            woke = try await wakeWaiting(named, keys: keys, appID: appID, now: now, definitions: definitions, on: connection, logger: logger) || woke
            // A paused journey takes no one; its entrants' waits and goals go on.
            let entering = journeys.filter { $0.1 != nil && $0.2 != nil && $0.3 }
            if !entering.isEmpty {
                woke =
                    try await enter(
                        named, journeys: entering.map { ($0.0, Int($0.1!), $0.2!) }, appID: appID, now: now,
                        definitions: definitions, on: connection, logger: logger) || woke
            }
        }
        if woke { try await connection.query("SELECT pg_notify(\(channel), '')", logger: logger) }
        return woke
    }

    /// Marks the journey sends opened; wakes the entries waiting for that send to be opened.
    private static func wakeOpened(
        _ apnsIDs: [UUID], appID: Int64, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        guard !apnsIDs.isEmpty else { return false }
        let woken = try await connection.query(
            """
            WITH opened AS (
                UPDATE journey_deliveries SET opened_at = \(now)
                WHERE app_id = \(appID) AND apns_id = ANY(\(apnsIDs)::uuid[]) AND opened_at IS NULL
                RETURNING entry_id, visit)
            UPDATE journey_entries e SET cause = 'matched', due_at = \(now)
            FROM (SELECT DISTINCT entry_id, visit FROM opened) o
            WHERE e.id = o.entry_id AND e.last_send = o.visit AND e.waiting_opened AND e.step IS NOT NULL
              AND e.cause <> 'matched'
            RETURNING e.id
            """, logger: logger
        ).collect()
        return !woken.isEmpty
    }

    /// Ends the entries whose goal one of the events is, within the goal's window.
    private static func reachGoals(
        _ events: [Event], keys: [String], appID: Int64, now: Date, definitions: JourneyDefinitions,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let window = Date(timeIntervalSince1970: now.timeIntervalSince1970 - Double(JourneyDefinition.maximumWaitSeconds))
        let rows = try await connection.query(
            """
            SELECT id, journey_id, version, user_key, entered_at FROM journey_entries
            WHERE app_id = \(appID) AND user_key = ANY(\(keys)::text[]) AND goal_at IS NULL AND entered_at >= \(window)
            """, logger: logger
        ).collect().map { try $0.decode((Int64, Int64, Int32, String, Date).self) }
        guard !rows.isEmpty else { return }
        let graphs = try await definitions.definitions(
            Set(rows.map { JourneyDefinitions.Key(journeyID: $0.1, version: Int($0.2)) }), on: connection, logger: logger)
        var reached = [Int64]()
        for (id, journeyID, version, key, enteredAt) in rows {
            guard let graph = graphs[JourneyDefinitions.Key(journeyID: journeyID, version: Int(version))],
                let goal = graph.goal,
                now.timeIntervalSince(enteredAt) <= Double(graph.goalWindowSeconds)
            else { continue }
            if events.contains(where: { $0.userKey == key && goal.matches(name: $0.name!, properties: $0.properties) }) {
                reached.append(id)
            }
        }
        guard !reached.isEmpty else { return }
        try await connection.query(
            """
            WITH reached AS (
                UPDATE journey_entries e SET goal_at = \(now),
                    step = NULL, outcome = CASE WHEN e.step IS NULL THEN e.outcome ELSE 'goal' END,
                    finished_at = coalesce(e.finished_at, \(now)), due_at = NULL, cause = 'arrived',
                    lease_owner = NULL, lease_until = NULL
                FROM (SELECT id, step, visits FROM journey_entries WHERE id = ANY(\(reached)::bigint[]) FOR UPDATE) old
                WHERE e.id = old.id
                RETURNING e.id, e.journey_id, e.version, old.step, old.visits)
            INSERT INTO journey_moves (entry_id, visit, journey_id, version, step, path, next, moved_at)
            SELECT id, visits, journey_id, version, step, 'goal', NULL, \(now) FROM reached WHERE step IS NOT NULL
            ON CONFLICT (entry_id, visit) DO NOTHING
            """, logger: logger)
    }

    /// Wakes the entries whose waitFor waits for one of the events (its properties matching).
    private static func wakeWaiting(
        _ events: [Event], keys: [String], appID: Int64, now: Date, definitions: JourneyDefinitions,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let names = Array(Set(events.compactMap(\.name)))
        let rows = try await connection.query(
            """
            SELECT id, journey_id, version, user_key, step, visits FROM journey_entries
            WHERE app_id = \(appID) AND user_key = ANY(\(keys)::text[]) AND step IS NOT NULL
              AND waiting_for = ANY(\(names)::text[]) AND cause <> 'matched'
            """, logger: logger
        ).collect().map { try $0.decode((Int64, Int64, Int32, String, String, Int32).self) }
        guard !rows.isEmpty else { return false }
        let graphs = try await definitions.definitions(
            Set(rows.map { JourneyDefinitions.Key(journeyID: $0.1, version: Int($0.2)) }), on: connection, logger: logger)
        var ids = [Int64]()
        var visits = [Int32]()
        for (id, journeyID, version, key, step, visit) in rows {
            guard
                case .waitFor(.event(let match), _, _, _)? = graphs[
                    JourneyDefinitions.Key(journeyID: journeyID, version: Int(version))]?.steps[step]
            else { continue }
            if events.contains(where: { $0.userKey == key && match.matches(name: $0.name!, properties: $0.properties) }) {
                ids.append(id)
                visits.append(visit)
            }
        }
        guard !ids.isEmpty else { return false }
        let woken = try await connection.query(
            """
            UPDATE journey_entries e SET cause = 'matched', due_at = \(now)
            FROM unnest(\(ids)::bigint[], \(visits)::integer[]) AS w(id, visits)
            WHERE e.id = w.id AND e.visits = w.visits AND e.step IS NOT NULL AND e.cause <> 'matched'
            RETURNING e.id
            """, logger: logger
        ).collect()
        return !woken.isEmpty
    }

    /// Enters the events' users in the active journeys entered on them, by the re-entry rules.
    private static func enter(
        _ events: [Event], journeys: [(id: Int64, version: Int, event: String)], appID: Int64, now: Date,
        definitions: JourneyDefinitions, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let recent = events.filter { now.timeIntervalSince($0.occurredAt) <= JourneyDefinition.entryEventMaximumAge }
        let wanted = journeys.filter { journey in recent.contains { $0.name == journey.event } }
        guard !wanted.isEmpty else { return false }
        let graphs = try await definitions.definitions(
            Set(wanted.map { JourneyDefinitions.Key(journeyID: $0.id, version: $0.version) }), on: connection, logger: logger)
        struct Candidate {
            var journeyID: Int64
            var version: Int
            var graph: JourneyDefinition
            var event: Event
        }
        var candidates = [Candidate]()
        var seen = Set<String>()
        for journey in wanted {
            guard let graph = graphs[JourneyDefinitions.Key(journeyID: journey.id, version: journey.version)],
                case .event(let match) = graph.entry.trigger
            else { continue }
            for event in recent where match.matches(name: event.name!, properties: event.properties) {
                guard seen.insert("\(journey.id)\u{1F}\(event.userKey!)").inserted else { continue }
                candidates.append(Candidate(journeyID: journey.id, version: journey.version, graph: graph, event: event))
            }
        }
        guard !candidates.isEmpty else { return false }
        let history = try await connection.query(
            """
            SELECT journey_id, user_key, max(entry_number), max(entered_at), bool_or(step IS NOT NULL)
            FROM journey_entries
            WHERE app_id = \(appID) AND journey_id = ANY(\(Array(Set(candidates.map(\.journeyID))))::bigint[])
              AND user_key = ANY(\(Array(Set(candidates.compactMap(\.event.userKey))))::text[])
            GROUP BY journey_id, user_key
            """, logger: logger
        ).collect().map { try $0.decode((Int64, String, Int32, Date, Bool).self) }
        var past = [String: (count: Int, last: Date, inside: Bool)]()
        for (journeyID, key, count, last, inside) in history { past["\(journeyID)\u{1F}\(key)"] = (Int(count), last, inside) }
        var rows = EntryRows()
        for candidate in candidates {
            let key = candidate.event.userKey!
            let before = past["\(candidate.journeyID)\u{1F}\(key)"]
            guard JourneyIntake.mayEnter(candidate.graph.entry, before: before, now: now) else { continue }
            rows.append(
                journeyID: candidate.journeyID, version: candidate.version, graph: candidate.graph, key: key,
                userID: candidate.event.userID, deviceID: candidate.event.deviceID, number: (before?.count ?? 0) + 1,
                properties: candidate.event.properties)
        }
        return try await rows.insert(appID: appID, now: now, on: connection, logger: logger) > 0
    }

    /// Whether a user may enter again: not while inside, never again unless re-entry is
    /// allowed and its interval has passed, and no more often than the limit.
    static func mayEnter(_ entry: JourneyDefinition.Entry, before: (count: Int, last: Date, inside: Bool)?, now: Date) -> Bool {
        guard let before else { return true }
        guard !before.inside, let interval = entry.reentryAfterSeconds else { return false }
        if let limit = entry.limitPerUser, before.count >= limit { return false }
        return now.timeIntervalSince(before.last) >= Double(interval)
    }

    /// New entries, inserted at once; a held-out entrant is over as it enters.
    struct EntryRows {
        var journeyIDs = [Int64](), versions = [Int32](), keys = [String](), userIDs = [String](), deviceIDs = [Int64]()
        var numbers = [Int32](), properties = [String](), heldOut = [Bool](), starts = [String]()
        /// Seconds from entering to the first look: a journey that starts with a wait is left
        /// waiting at once (what the engine's first walk would do), so its entrants cost no walk
        /// until their wait ends.
        var firstLooks = [Int32]()

        mutating func append(
            journeyID: Int64, version: Int, graph: JourneyDefinition, key: String, userID: String?, deviceID: Int64?,
            number: Int, properties given: [String: PayloadValue]
        ) {
            journeyIDs.append(journeyID)
            versions.append(Int32(version))
            keys.append(key)
            userIDs.append(userID ?? "")
            deviceIDs.append(deviceID ?? 0)
            numbers.append(Int32(number))
            properties.append(given.isEmpty ? "" : AppEvent.compactJSON(given))
            heldOut.append(JourneyWalk.heldOut(journeyID: journeyID, user: key, basisPoints: graph.holdoutBasisPoints))
            starts.append(graph.start)
            if case .wait(let seconds, _)? = graph.steps[graph.start] { firstLooks.append(Int32(seconds)) } else { firstLooks.append(0) }
        }

        /// How many entries are due now (held-out ones and those waiting do not count).
        func insert(appID: Int64, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Int {
            guard !keys.isEmpty else { return 0 }
            let made = try await connection.query(
                """
                -- RETURNING names columns only (entered_at is now): a Citus cluster loses a
                -- parameter there when it runs an INSERT … SELECT through the coordinator.
                INSERT INTO journey_entries (journey_id, version, app_id, user_key, user_id, device_id, entry_number,
                                             entered_at, properties, held_out, step, arrived_at, cause, due_at, outcome,
                                             finished_at)
                SELECT journey_id, version, \(appID), user_key, NULLIF(user_id, ''), NULLIF(device_id, 0), entry_number,
                       \(now), NULLIF(properties, '')::jsonb, held_out, CASE WHEN held_out THEN NULL ELSE start END,
                       \(now), 'arrived',
                       CASE WHEN held_out THEN NULL ELSE \(now)::timestamptz + make_interval(secs => first_look) END,
                       CASE WHEN held_out THEN 'heldOut' END, CASE WHEN held_out THEN \(now)::timestamptz END
                FROM unnest(\(journeyIDs)::bigint[], \(versions)::integer[], \(keys)::text[], \(userIDs)::text[],
                            \(deviceIDs)::bigint[], \(numbers)::integer[], \(properties)::text[], \(heldOut)::boolean[],
                            \(starts)::text[], \(firstLooks)::integer[])
                    AS t(journey_id, version, user_key, user_id, device_id, entry_number, properties, held_out, start,
                         first_look)
                ON CONFLICT (journey_id, user_key, entry_number) DO NOTHING
                RETURNING held_out OR due_at > entered_at
                """, logger: logger
            ).collect().map { try $0.decode(Bool.self) }
            return made.filter { !$0 }.count
        }
    }
}
