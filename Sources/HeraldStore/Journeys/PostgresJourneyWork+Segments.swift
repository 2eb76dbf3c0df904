import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresJourneyWork {
    /// Users entered by one pass, per journey: the rest enter on the next.
    static let segmentEntriesPerPass = 10_000

    /// Enters, for each active journey entered on a saved segment, the users with a valid
    /// device that matches the segment's latest version now and who may enter by the journey's
    /// rules (never inside twice; again only after the re-entry interval and within the limit).
    public func enterSegments(now: Date) async throws -> Int {
        try await DatabaseMetrics.measure("journeys.enterSegments") {
            let journeys = try await client.query(
                """
                SELECT j.id, j.app_id, j.live_version, v.definition::text
                FROM journeys j
                JOIN segments s ON s.app_id = j.app_id AND s.name = j.entry_segment AND s.archived_at IS NULL
                JOIN segment_versions v ON v.segment_id = s.id AND v.version = s.latest_version
                WHERE j.state = 'active' AND j.entry_segment IS NOT NULL AND j.live_version IS NOT NULL
                """, logger: logger
            ).collect().map { try $0.decode((Int64, Int64, Int32, String).self) }
            var entered = 0
            for (journeyID, appID, version, segmentText) in journeys {
                let segment = try CampaignJSON.decode(Segment.self, from: segmentText)
                entered += try await client.withDomainTransaction(logger: logger) { connection in
                    // The segment is matched on every part's shard on a Citus cluster; the entries
                    // on the coordinator may be written after that only over one connection per node.
                    try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                    let key = JourneyDefinitions.Key(journeyID: journeyID, version: Int(version))
                    guard let graph = try await definitions.definitions([key], on: connection, logger: logger)[key] else {
                        return 0
                    }
                    // One pass at a time per journey: another instance's pass waits, then finds them entered.
                    try await connection.query("SELECT 1 FROM journeys WHERE id = \(journeyID) FOR UPDATE", logger: logger)
                    let reentry = graph.entry.reentryAfterSeconds ?? 0
                    let limit = graph.entry.limitPerUser ?? 0
                    let since = now.addingTimeInterval(-TimeInterval(reentry))
                    var sql = SQLBuilder(
                        """
                        WITH candidates AS (
                            SELECT DISTINCT ON (user_key) user_key, user_id, device_id FROM (
                                SELECT CASE WHEN coalesce(user_id, '') <> '' THEN 'u:' || user_id ELSE 'd:' || id END AS user_key,
                                       NULLIF(user_id, '') AS user_id, id AS device_id
                                FROM devices WHERE \u{20}
                        """)
                    let events = try await EventLookup.choose(appID: appID, segments: [segment], on: connection, logger: logger)
                    try PostgresSegments.appendMatch(appID: appID, segment: segment, now: now, events: events, to: &sql)
                    sql.append(
                        """
                            ) d ORDER BY user_key, device_id DESC)
                        SELECT c.user_key, c.user_id, c.device_id, h.count::integer FROM candidates c
                        CROSS JOIN LATERAL (
                            SELECT count(*) AS count, max(entered_at) AS last, coalesce(bool_or(step IS NOT NULL), false) AS inside
                            FROM journey_entries e WHERE e.journey_id =
                        """)
                    sql.bind(journeyID)
                    sql.append(" AND e.app_id = ")
                    sql.bind(appID)
                    sql.append(" AND e.user_key = c.user_key) h WHERE h.count = 0 OR (")
                    sql.bind(reentry)
                    sql.append(" > 0 AND NOT h.inside AND h.last <= ")
                    sql.bind(since)
                    sql.append(" AND (")
                    sql.bind(limit)
                    sql.append(" = 0 OR h.count < ")
                    sql.bind(limit)
                    sql.append(")) LIMIT ")
                    sql.bind(Self.segmentEntriesPerPass)
                    let rows = try await connection.query(sql.query, logger: logger).collect()
                    var entries = JourneyIntake.EntryRows()
                    for row in rows {
                        let (userKey, userID, deviceID, count) = try row.decode((String, String?, Int64, Int32).self)
                        entries.append(
                            journeyID: journeyID, version: Int(version), graph: graph, key: userKey, userID: userID,
                            deviceID: userID == nil ? deviceID : nil, number: Int(count) + 1, properties: [:])
                    }
                    let made = try await entries.insert(appID: appID, now: now, on: connection, logger: logger)
                    if made > 0 { try await connection.query("SELECT pg_notify(\(JourneyIntake.channel), '')", logger: logger) }
                    return entries.keys.count
                }
            }
            return entered
        }
    }
}
