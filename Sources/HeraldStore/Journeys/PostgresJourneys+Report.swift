import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresJourneys {
    /// The journey's counters, of one version or of all: entrants and held-out users with the
    /// goal reached by each, and per step who came, who is there, where they went, and for a
    /// send step what each device answered, what was opened and who reached the goal after it.
    public func report(journeyID: Int64, version: Int?) async throws -> JourneyReport {
        try await DatabaseMetrics.measure("journeys.report") {
            try await client.withConnection { connection in
                let only = Int32(version ?? 0)
                let graphs = try await Self.graphs(journeyID: journeyID, on: connection, logger: logger)
                let totalsRow = try await connection.query(
                    """
                    SELECT count(*) FILTER (WHERE NOT held_out), count(*) FILTER (WHERE held_out),
                           count(*) FILTER (WHERE step IS NOT NULL),
                           count(*) FILTER (WHERE goal_at IS NOT NULL AND NOT held_out),
                           count(*) FILTER (WHERE goal_at IS NOT NULL AND held_out)
                    FROM journey_entries WHERE journey_id = \(journeyID) AND (\(only) = 0 OR version = \(only))
                    """, logger: logger
                ).collect().first
                var totals: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
                if let totalsRow { totals = try totalsRow.decode((Int64, Int64, Int64, Int64, Int64).self) }
                var steps = [String: JourneyReport.Step]()
                func step(_ id: String, version: Int? = nil) -> JourneyReport.Step {
                    if let known = steps[id] { return known }
                    let graph = version.flatMap { graphs[$0] } ?? graphs.values.first { $0.steps[id] != nil }
                    return JourneyReport.Step(id: id, kind: graph?.steps[id].map(Self.kind) ?? "unknown")
                }
                // Order: the reported graph's steps from the start, breadth first.
                let shown = graphs[version ?? graphs.keys.max() ?? 1]
                for id in shown.map(Self.order) ?? [] { steps[id] = step(id, version: version ?? graphs.keys.max()) }
                for row in try await connection.query(
                    """
                    SELECT version, count(*) FROM journey_entries
                    WHERE journey_id = \(journeyID) AND NOT held_out AND (\(only) = 0 OR version = \(only)) GROUP BY version
                    """, logger: logger
                ).collect() {
                    let (entryVersion, count) = try row.decode((Int32, Int64).self)
                    guard let start = graphs[Int(entryVersion)]?.start else { continue }
                    var counted = step(start, version: Int(entryVersion))
                    counted.entered += Int(count)
                    steps[start] = counted
                }
                for row in try await connection.query(
                    """
                    SELECT step, count(*) FROM journey_entries
                    WHERE journey_id = \(journeyID) AND step IS NOT NULL AND (\(only) = 0 OR version = \(only)) GROUP BY step
                    """, logger: logger
                ).collect() {
                    let (id, count) = try row.decode((String, Int64).self)
                    var counted = step(id)
                    counted.waiting = Int(count)
                    steps[id] = counted
                }
                for row in try await connection.query(
                    """
                    SELECT step, path, next, detail, count(*) FROM journey_moves
                    WHERE journey_id = \(journeyID) AND (\(only) = 0 OR version = \(only))
                    GROUP BY step, path, next, detail
                    """, logger: logger
                ).collect() {
                    let (id, path, next, detail, count) = try row.decode((String, String, String?, String?, Int64).self)
                    var from = step(id)
                    from.paths[path, default: 0] += Int(count)
                    if let detail { from.notSent[detail, default: 0] += Int(count) }
                    steps[id] = from
                    if let next {
                        var to = step(next)
                        to.entered += Int(count)
                        steps[next] = to
                    }
                }
                for row in try await connection.query(
                    """
                    SELECT d.step, d.outcome, count(*), count(d.opened_at),
                           count(DISTINCT d.entry_id) FILTER (WHERE e.goal_at >= d.created_at AND NOT e.held_out)
                    FROM journey_deliveries d JOIN journey_entries e ON e.id = d.entry_id
                    WHERE d.journey_id = \(journeyID) AND (\(only) = 0 OR d.version = \(only))
                    GROUP BY d.step, d.outcome
                    """, logger: logger
                ).collect() {
                    let (id, outcome, count, opened, converted) = try row.decode((String, String, Int64, Int64, Int64).self)
                    var counted = step(id)
                    counted.deliveries[outcome, default: 0] += Int(count)
                    counted.opened += Int(opened)
                    counted.converted += Int(converted)
                    steps[id] = counted
                }
                let ordered = (shown.map(Self.order) ?? []) + steps.keys.sorted().filter { id in shown?.steps[id] == nil }
                return JourneyReport(
                    version: version, entrants: Int(totals.0), heldOut: Int(totals.1), inside: Int(totals.2),
                    goals: Int(totals.3), heldOutGoals: Int(totals.4), steps: ordered.compactMap { steps[$0] })
            }
        }
    }

    /// Every version's graph.
    static func graphs(journeyID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [Int: JourneyDefinition] {
        var graphs = [Int: JourneyDefinition]()
        for row in try await connection.query(
            "SELECT version, definition::text FROM journey_versions WHERE journey_id = \(journeyID)", logger: logger
        ).collect() {
            let (version, text) = try row.decode((Int32, String).self)
            if let graph = try? JourneyDefinition(json: CampaignJSON.decode(PayloadValue.self, from: text)) {
                graphs[Int(version)] = graph
            }
        }
        return graphs
    }

    /// The steps from the start, breadth first, each once.
    static func order(_ graph: JourneyDefinition) -> [String] {
        var seen: Set<String> = [graph.start]
        var ordered = [graph.start]
        var index = 0
        while index < ordered.count {
            for next in graph.steps[ordered[index]]?.successors ?? [] where seen.insert(next).inserted { ordered.append(next) }
            index += 1
        }
        return ordered
    }

    static func kind(_ step: JourneyDefinition.Step) -> String {
        switch step {
        case .send: "send"
        case .wait, .waitWindow: "wait"
        case .waitFor: "waitFor"
        case .branch: "branch"
        case .split: "split"
        case .exit: "exit"
        }
    }
}

extension PostgresJourneys {
    public func deliveries(journeyID: Int64, query q: JourneyDeliveryQuery) async throws -> [JourneyDelivery] {
        // NULL parameters switch a filter off; a user's rows are found through their entries
        // (journey_entries_user_idx), not by reading the journey's whole ledger.
        let rows = try await client.query(
            """
            SELECT d.id, d.step, d.version, e.user_id, d.token, d.outcome, d.status, d.reason, d.apns_id, d.language,
                   d.created_at, d.opened_at
            FROM journey_deliveries d JOIN journey_entries e ON e.id = d.entry_id
            WHERE d.journey_id = \(journeyID) AND d.id > \(q.cursor ?? 0)
              AND (\(q.step)::text IS NULL OR d.step = \(q.step))
              AND (\(q.version.map(Int32.init))::integer IS NULL OR d.version = \(q.version.map(Int32.init)))
              AND (\(q.outcome?.rawValue)::text IS NULL OR d.outcome = \(q.outcome?.rawValue))
              AND (\(q.userID)::text IS NULL OR d.entry_id IN (
                    SELECT x.id FROM journey_entries x
                    WHERE x.app_id = e.app_id AND x.user_key = 'u:' || \(q.userID) AND x.journey_id = \(journeyID)))
            ORDER BY d.id LIMIT \(q.limit)
            """, logger: logger
        ).collect()
        return try rows.map { row in
            let (id, step, version, userID, token, outcome, status, reason, apnsID, language, sentAt, openedAt) = try row.decode(
                (Int64, String, Int32, String?, ByteBuffer, String, Int32?, String?, UUID?, String?, Date, Date?).self)
            return JourneyDelivery(
                id: id, step: step, version: Int(version), userID: userID, token: try DeviceToken(bytes: Array(buffer: token)),
                outcome: DeliveryOutcome(kind: DeliveryOutcome.Kind(rawValue: outcome) ?? .failed, status: status.map(Int.init), reason: reason),
                apnsID: apnsID, language: language, sentAt: sentAt, openedAt: openedAt)
        }
    }
}
