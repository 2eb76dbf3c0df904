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
                              (SELECT d.token FROM devices d WHERE d.id = e.device_id AND d.app_id = e.app_id),
                              e.step, e.arrived_at, e.cause, e.visits, e.last_send, e.properties::text,
                              ARRAY(SELECT DISTINCT d.visit FROM journey_deliveries d
                                    WHERE d.entry_id = e.id AND d.visit >= e.visits),
                              (SELECT d.time_zone FROM devices d
                               WHERE d.app_id = e.app_id AND d.invalidated_at IS NULL AND d.time_zone IS NOT NULL
                                 AND (d.user_id = e.user_id OR (e.user_id IS NULL AND d.id = e.device_id))
                               ORDER BY d.id DESC LIMIT 1)
                    """, logger: logger
                ).collect()
                typealias Row = (
                    Int64, Int64, Int32, Int64, String, String?, Int64?, ByteBuffer?, String, Date, String, Int32, Int32?,
                    String?, [Int32], String?
                )
                let decoded = try rows.map { try $0.decode(Row.self) }
                let graphs = try await definitions.definitions(
                    Set(decoded.map { JourneyDefinitions.Key(journeyID: $0.1, version: Int($0.2)) }), on: connection,
                    logger: logger)
                var leases = [JourneyLease]()
                for row in decoded {
                    guard let graph = graphs[JourneyDefinitions.Key(journeyID: row.1, version: Int(row.2))] else { continue }
                    let properties: [String: PayloadValue]
                    if let text = row.13, case .object(let members) = try CampaignJSON.decode(PayloadValue.self, from: text) {
                        properties = members
                    } else {
                        properties = [:]
                    }
                    leases.append(
                        JourneyLease(
                            entryID: row.0, journeyID: row.1, version: Int(row.2), appID: row.3, userKey: row.4, userID: row.5,
                            deviceID: row.6, deviceToken: try row.7.map { try DeviceToken(bytes: Array(buffer: $0)) },
                            step: row.8, arrivedAt: row.9, cause: JourneyWalk.Cause(rawValue: row.10) ?? .due,
                            visits: Int(row.11), lastSend: row.12.map(Int.init), properties: properties, definition: graph,
                            sentVisits: Set(row.14.map(Int.init)), timeZone: row.15))
                }
                return leases
            }
        }
    }

    public func save(_ lease: JourneyLease, progress: JourneyProgress, owner: String) async throws -> Bool {
        try await DatabaseMetrics.measure("journeys.save") {
            // One statement, so one round trip and atomic: the moves are written only if the
            // entry was still this engine's and unchanged.
            let moves = progress.moves
            let rows = try await client.query(
                """
                WITH moved AS (
                    UPDATE journey_entries SET step = \(progress.step), outcome = \(progress.outcome),
                        finished_at = CASE WHEN \(progress.step)::text IS NULL THEN \(progress.arrivedAt) END,
                        arrived_at = \(progress.arrivedAt), cause = \(progress.cause.rawValue), due_at = \(progress.dueAt),
                        waiting_for = \(progress.waitingFor), waiting_opened = \(progress.waitingOpened),
                        visits = \(progress.visits), last_send = \(progress.lastSend),
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = \(lease.entryID) AND lease_owner = \(owner) AND visits = \(lease.visits)
                      AND cause = \(lease.cause.rawValue) AND step IS NOT NULL
                    RETURNING id
                ), recorded AS (
                    INSERT INTO journey_moves (entry_id, visit, journey_id, version, step, path, next, detail, moved_at)
                    SELECT \(lease.entryID), visit, \(lease.journeyID), \(lease.version), step, path, NULLIF(next, ''),
                           NULLIF(detail, ''), moved_at
                    FROM unnest(\(moves.map { Int32($0.visit) })::integer[], \(moves.map(\.step))::text[],
                                \(moves.map(\.path))::text[], \(moves.map { $0.next ?? "" })::text[],
                                \(moves.map { $0.detail ?? "" })::text[], \(moves.map(\.at))::timestamptz[])
                        AS t(visit, step, path, next, detail, moved_at)
                    WHERE EXISTS (SELECT 1 FROM moved)
                    ON CONFLICT (entry_id, visit) DO NOTHING
                )
                SELECT count(*) FROM moved
                """, logger: logger
            ).collect()
            return try rows.first?.decode(Int64.self) == 1
        }
    }

    public func renew(_ lease: JourneyLease, owner: String, until: Date) async throws -> Bool {
        try await !client.query(
            """
            UPDATE journey_entries SET lease_until = \(until)
            WHERE id = \(lease.entryID) AND lease_owner = \(owner) AND visits = \(lease.visits) AND step IS NOT NULL
            RETURNING id
            """, logger: logger
        ).collect().isEmpty
    }

    public func release(_ lease: JourneyLease, owner: String) async throws {
        try await client.query(
            """
            UPDATE journey_entries SET lease_owner = NULL, lease_until = NULL
            WHERE id = \(lease.entryID) AND lease_owner = \(owner)
            """, logger: logger)
    }

    public func opened(entryID: Int64, visit: Int) async throws -> Bool {
        try await client.query(
            """
            SELECT 1 FROM journey_deliveries WHERE entry_id = \(entryID) AND visit = \(visit) AND opened_at IS NOT NULL LIMIT 1
            """, logger: logger
        ).collect().isEmpty == false
    }

    public func matches(_ segment: Segment, appID: Int64, userID: String?, deviceID: Int64?, now: Date) async throws -> Bool {
        var sql = SQLBuilder("SELECT EXISTS (SELECT 1 FROM devices WHERE ")
        try PostgresSegments.appendMatch(appID: appID, segment: segment, now: now, to: &sql)
        if let userID {
            sql.append(" AND user_id = ")
            sql.bind(userID)
        } else {
            sql.append(" AND id = ")
            sql.bind(deviceID ?? 0)
        }
        sql.append(")")
        return try await client.query(sql.query, logger: logger).collect().first?.decode(Bool.self) ?? false
    }

    public func listenForJourneys(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await WorkSignal.listen(on: JourneyIntake.channel, client: client, for: duration, logger: logger, wake: wake)
    }
}
