import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The journey engine's work in PostgreSQL (docs/journeys.md "The engine"): entries due are
/// claimed under a lease with `FOR UPDATE SKIP LOCKED`, as campaign chunks are; walking one
/// ends in one transaction that records its moves and where it stands, if it still holds the
/// lease and nothing (a goal) changed the entry meanwhile.
public struct PostgresJourneyWork: JourneyWork {
    let client: PostgresClient
    let definitions: JourneyDefinitions
    let logger: Logger

    public init(client: PostgresClient, definitions: JourneyDefinitions, logger: Logger) {
        self.client = client
        self.definitions = definitions
        self.logger = logger.forDatabase
    }

    public func claim(owner: String, limit: Int, leaseSeconds: Int, now: Date) async throws -> [JourneyLease] {
        try await DatabaseMetrics.measure("journeys.claim") {
            try await client.withConnection { connection in
                let leaseUntil = now.addingTimeInterval(TimeInterval(leaseSeconds))
                let rows = try await connection.query(
                    """
                    WITH picked AS (
                        SELECT e.id FROM journey_entries e JOIN journeys j ON j.id = e.journey_id
                        WHERE e.step IS NOT NULL AND e.due_at <= \(now) AND j.state = 'active'
                          AND (e.lease_until IS NULL OR e.lease_until < \(now))
                        ORDER BY e.due_at LIMIT \(limit)
                        FOR UPDATE OF e SKIP LOCKED)
                    UPDATE journey_entries e SET lease_owner = \(owner), lease_until = \(leaseUntil)
                    FROM picked WHERE e.id = picked.id
                    RETURNING e.id, e.journey_id, e.version, e.app_id, e.user_key, e.user_id, e.device_id,
                              e.step, e.arrived_at, e.cause, e.visits, e.last_send, e.properties::text,
                              ARRAY(SELECT DISTINCT d.visit FROM journey_deliveries d
                                    WHERE d.entry_id = e.id AND d.visit >= e.visits)
                    """, logger: logger
                ).collect()
                typealias Row = (
                    Int64, Int64, Int32, Int64, String, String?, Int64?, String, Date, String, Int32, Int32?, String?, [Int32]
                )
                let decoded = try rows.map { try $0.decode(Row.self) }
                let devices = try await Self.devices(
                    of: decoded.map { (appID: $0.3, userID: $0.5, deviceID: $0.6) }, on: connection, logger: logger)
                let graphs = try await definitions.definitions(
                    Set(decoded.map { JourneyDefinitions.Key(journeyID: $0.1, version: Int($0.2)) }), on: connection,
                    logger: logger)
                var leases = [JourneyLease]()
                for row in decoded {
                    guard let graph = graphs[JourneyDefinitions.Key(journeyID: row.1, version: Int(row.2))] else { continue }
                    let properties: [String: PayloadValue]
                    if let text = row.12, case .object(let members) = try CampaignJSON.decode(PayloadValue.self, from: text) {
                        properties = members
                    } else {
                        properties = [:]
                    }
                    leases.append(
                        JourneyLease(
                            entryID: row.0, journeyID: row.1, version: Int(row.2), appID: row.3, userKey: row.4, userID: row.5,
                            deviceID: row.6, deviceToken: row.6.flatMap { devices.token(appID: row.3, deviceID: $0) },
                            step: row.7, arrivedAt: row.8, cause: JourneyWalk.Cause(rawValue: row.9) ?? .due,
                            visits: Int(row.10), lastSend: row.11.map(Int.init), properties: properties, definition: graph,
                            sentVisits: Set(row.13.map(Int.init)),
                            timeZone: devices.timeZone(appID: row.3, userID: row.5, deviceID: row.6)))
                }
                return leases
            }
        }
    }

    /// The devices claimed entries name (their own device, or their user's), read apart from the
    /// claim: the entries stay on the coordinator of a Citus cluster and the devices are
    /// distributed, and a write there cannot read them in subqueries (docs/scaling.md).
    static func devices(
        of entries: [(appID: Int64, userID: String?, deviceID: Int64?)], on connection: PostgresConnection, logger: Logger
    ) async throws -> EntryDevices {
        var found = EntryDevices()
        guard !entries.isEmpty else { return found }
        let rows = try await connection.query(
            """
            SELECT app_id, id, token, user_id, CASE WHEN invalidated_at IS NULL THEN time_zone END FROM devices
            WHERE app_id = ANY(\(Array(Set(entries.map(\.appID))))::bigint[])
              AND (id = ANY(\(entries.compactMap(\.deviceID))::bigint[])
                   OR user_id = ANY(\(Array(Set(entries.compactMap(\.userID))))::text[]))
            """, logger: logger)
        for try await (appID, id, token, userID, zone) in rows.decode((Int64, Int64, ByteBuffer, String?, String?).self) {
            found.add(appID: appID, id: id, token: try DeviceToken(bytes: Array(buffer: token)), userID: userID, timeZone: zone)
        }
        return found
    }

    public func nextDue(after now: Date) async throws -> Date? {
        try await client.query(
            """
            SELECT due_at FROM journey_entries WHERE step IS NOT NULL AND due_at > \(now) ORDER BY due_at LIMIT 1
            """, logger: logger
        ).collect().first?.decode(Date.self)
    }

    public func save(_ walks: [(lease: JourneyLease, progress: JourneyProgress)], owner: String) async throws -> Set<Int64> {
        guard !walks.isEmpty else { return [] }
        return try await DatabaseMetrics.measure("journeys.save") {
            // One statement for the batch, so one round trip and atomic: an entry's moves are
            // written only if the entry was still this engine's and unchanged. Arrays cannot
            // hold NULL here: "", -1 and a false `has_due` stand for "none".
            let leases = walks.map(\.lease)
            let states = walks.map(\.progress)
            var moves = [(entryID: Int64, move: JourneyMove)]()
            for walk in walks { moves += walk.progress.moves.map { (walk.lease.entryID, $0) } }
            let rows = try await client.query(
                """
                WITH t AS (
                    SELECT * FROM unnest(\(leases.map(\.entryID))::bigint[], \(leases.map { Int32($0.visits) })::integer[],
                                         \(leases.map(\.cause.rawValue))::text[], \(states.map { $0.step ?? "" })::text[],
                                         \(states.map { $0.outcome ?? "" })::text[], \(states.map(\.arrivedAt))::timestamptz[],
                                         \(states.map(\.cause.rawValue))::text[], \(states.map { $0.dueAt ?? $0.arrivedAt })::timestamptz[],
                                         \(states.map { $0.dueAt != nil })::boolean[], \(states.map { $0.waitingFor ?? "" })::text[],
                                         \(states.map(\.waitingOpened))::boolean[], \(states.map { Int32($0.visits) })::integer[],
                                         \(states.map { Int32($0.lastSend ?? -1) })::integer[])
                        AS t(id, old_visits, old_cause, step, outcome, arrived_at, cause, due_at, has_due, waiting_for,
                             waiting_opened, visits, last_send)
                ), moved AS (
                    UPDATE journey_entries e SET step = NULLIF(t.step, ''), outcome = NULLIF(t.outcome, ''),
                        finished_at = CASE WHEN t.step = '' THEN t.arrived_at END,
                        arrived_at = t.arrived_at, cause = t.cause, due_at = CASE WHEN t.has_due THEN t.due_at END,
                        waiting_for = NULLIF(t.waiting_for, ''), waiting_opened = t.waiting_opened, visits = t.visits,
                        last_send = NULLIF(t.last_send, -1), lease_owner = NULL, lease_until = NULL
                    FROM t
                    WHERE e.id = t.id AND e.lease_owner = \(owner) AND e.visits = t.old_visits AND e.cause = t.old_cause
                      AND e.step IS NOT NULL
                    RETURNING e.id, e.journey_id, e.version
                ), recorded AS (
                    INSERT INTO journey_moves (entry_id, visit, journey_id, version, step, path, next, detail, moved_at)
                    SELECT m.entry_id, m.visit, moved.journey_id, moved.version, m.step, m.path, NULLIF(m.next, ''),
                           NULLIF(m.detail, ''), m.moved_at
                    FROM unnest(\(moves.map(\.entryID))::bigint[], \(moves.map { Int32($0.move.visit) })::integer[],
                                \(moves.map(\.move.step))::text[], \(moves.map(\.move.path))::text[],
                                \(moves.map { $0.move.next ?? "" })::text[], \(moves.map { $0.move.detail ?? "" })::text[],
                                \(moves.map(\.move.at))::timestamptz[])
                        AS m(entry_id, visit, step, path, next, detail, moved_at)
                    JOIN moved ON moved.id = m.entry_id
                    ON CONFLICT (entry_id, visit) DO NOTHING
                )
                SELECT id FROM moved
                """, logger: logger
            ).collect()
            return Set(try rows.map { try $0.decode(Int64.self) })
        }
    }

    public func renew(_ leases: [JourneyLease], owner: String, until: Date) async throws -> Set<Int64> {
        guard !leases.isEmpty else { return [] }
        let rows = try await client.query(
            """
            UPDATE journey_entries e SET lease_until = \(until)
            FROM unnest(\(leases.map(\.entryID))::bigint[], \(leases.map { Int32($0.visits) })::integer[]) AS t(id, visits)
            WHERE e.id = t.id AND e.lease_owner = \(owner) AND e.visits = t.visits AND e.step IS NOT NULL
            RETURNING e.id
            """, logger: logger
        ).collect()
        return Set(try rows.map { try $0.decode(Int64.self) })
    }

    public func release(_ leases: [JourneyLease], owner: String) async throws {
        guard !leases.isEmpty else { return }
        try await client.query(
            """
            UPDATE journey_entries SET lease_owner = NULL, lease_until = NULL
            WHERE id = ANY(\(leases.map(\.entryID))::bigint[]) AND lease_owner = \(owner)
            """, logger: logger)
    }

    public func opened(_ visits: [JourneyVisit]) async throws -> Set<JourneyVisit> {
        guard !visits.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT DISTINCT d.entry_id, d.visit
            FROM unnest(\(visits.map(\.entryID))::bigint[], \(visits.map { Int32($0.visit) })::integer[]) AS t(entry_id, visit)
            JOIN journey_deliveries d ON d.entry_id = t.entry_id AND d.visit = t.visit
            WHERE d.opened_at IS NOT NULL
            """, logger: logger
        ).collect()
        return Set(
            try rows.map { row in
                let (entryID, visit) = try row.decode((Int64, Int32).self)
                return JourneyVisit(entryID: entryID, visit: Int(visit))
            })
    }

    public func matching(
        _ segment: Segment, appID: Int64, userIDs: [String], deviceIDs: [Int64], now: Date
    ) async throws
        -> (userIDs: Set<String>, deviceIDs: Set<Int64>)
    {
        let users = try await matching(segment, appID: appID, column: "user_id", values: userIDs, type: "text", now: now)
        let devices = try await matching(segment, appID: appID, column: "id", values: deviceIDs, type: "bigint", now: now)
        return (Set(users), Set(devices))
    }

    public func savedSegments(appID: Int64, names: [String]) async throws -> [String: Segment] {
        guard !names.isEmpty else { return [:] }
        let rows = try await client.query(
            """
            SELECT s.name, v.definition::text FROM segments s
            JOIN segment_versions v ON v.segment_id = s.id AND v.version = s.latest_version
            WHERE s.app_id = \(appID) AND s.name = ANY(\(Array(Set(names)))::text[]) AND s.archived_at IS NULL
            """, logger: logger
        ).collect()
        var found = [String: Segment]()
        for row in rows {
            let (name, text) = try row.decode((String, String).self)
            found[name] = try CampaignJSON.decode(Segment.self, from: text)
        }
        return found
    }

    /// The values of `column` among `values` held by a device that matches the segment.
    private func matching<Value: PostgresDecodable & PostgresArrayEncodable & PostgresNonThrowingEncodable>(
        _ segment: Segment, appID: Int64, column: String, values: [Value], type: String, now: Date
    ) async throws -> [Value] {
        guard !values.isEmpty else { return [] }
        let events = try await EventLookup.choose(appID: appID, segments: [segment], client: client, logger: logger)
        var sql = SQLBuilder("SELECT DISTINCT \(column) FROM devices WHERE ")
        try PostgresSegments.appendMatch(appID: appID, segment: segment, now: now, events: events, to: &sql)
        sql.append(" AND \(column) = ANY(")
        sql.bind(values)
        sql.append("::\(type)[])")
        return try await client.query(sql.query, logger: logger).collect().map { try $0.decode(Value.self) }
    }

    public func listenForJourneys(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await WorkSignal.listen(on: JourneyIntake.channel, client: client, for: duration, logger: logger, wake: wake)
    }
}

/// Devices of claimed journey entries: tokens by device, and the time zone an entry's local
/// times use (the newest valid device with one: among the user's devices, or the entry's own).
struct EntryDevices {
    private var tokens: [Pair: DeviceToken] = [:]
    private var zonesByDevice: [Pair: String] = [:]
    private var zonesByUser: [UserKey: (id: Int64, zone: String)] = [:]

    private struct Pair: Hashable {
        let appID: Int64
        let id: Int64
    }

    private struct UserKey: Hashable {
        let appID: Int64
        let userID: String
    }

    mutating func add(appID: Int64, id: Int64, token: DeviceToken, userID: String?, timeZone: String?) {
        tokens[Pair(appID: appID, id: id)] = token
        guard let timeZone else { return }
        zonesByDevice[Pair(appID: appID, id: id)] = timeZone
        if let userID {
            let key = UserKey(appID: appID, userID: userID)
            if (zonesByUser[key]?.id ?? Int64.min) < id { zonesByUser[key] = (id, timeZone) }
        }
    }

    func token(appID: Int64, deviceID: Int64) -> DeviceToken? { tokens[Pair(appID: appID, id: deviceID)] }

    func timeZone(appID: Int64, userID: String?, deviceID: Int64?) -> String? {
        if let userID { return zonesByUser[UserKey(appID: appID, userID: userID)]?.zone }
        return deviceID.flatMap { zonesByDevice[Pair(appID: appID, id: $0)] }
    }
}
