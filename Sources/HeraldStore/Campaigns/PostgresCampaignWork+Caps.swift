import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresCampaignWork {
    public func reserve(_ lease: ChunkLease, deviceIDs: [Int64], caps: [FrequencyCap], now: Date) async throws -> Set<Int64> {
        guard !deviceIDs.isEmpty, !caps.isEmpty else { return Set(deviceIDs) }
        return try await DatabaseMetrics.measure("work.reserve") {
            let key = try await Self.chunkKey("k", lease, client: client, logger: logger)
            return try await client.withDomainTransaction(logger: logger) { connection -> Set<Int64> in
                try await Self.lockChunk(lease, key: key, on: connection, logger: logger)
                return try await Self.takePlaces(
                    appID: lease.appID, key: lease.campaignID, deviceIDs: deviceIDs,
                    buckets: Array(lease.buckets), caps: caps, now: now, on: connection, logger: logger)
            }
        }
    }

    /// Takes places under `caps` for the devices still under them, in the caller's transaction:
    /// first a transaction-scoped advisory lock on each bucket given, in order. Whoever holds a
    /// device's bucket decides its places; every batch that can hold a device covers its bucket,
    /// so two never take its last place together. The lock writes no row. `key` is the
    /// campaign's ID, or a transactional request's negative key.
    static func takePlaces(
        appID: Int64, key: Int64, deviceIDs: [Int64], buckets: [Int], caps: [FrequencyCap], now: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Set<Int64> {
        try await connection.query(
            """
            SELECT pg_advisory_xact_lock(\(Self.capsLockSpace) # \(Int32(truncatingIfNeeded: appID)), b)
            FROM unnest(\(Set(buckets).sorted().map { Int32($0) })::integer[]) AS b ORDER BY b
            """, logger: logger)
        let longest = Double(caps.map(\.window).max() ?? 0)
        // One count per device over its places in the longest window, split by window with FILTER.
        var counts = [String]()
        var checks = [String]()
        for (index, cap) in caps.enumerated() {
            counts.append("count(*) FILTER (WHERE s.sent_at > $2::timestamptz - make_interval(secs => \(Double(cap.window)))) AS c\(index)")
            checks.append("n.c\(index) < \(cap.limit)")
        }
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO frequency_sends AS f (app_id, device_id, campaign_id, sent_at)
                    SELECT $1, i.id, $3, $2
                    FROM unnest($4::bigint[]) AS i(id)
                    CROSS JOIN LATERAL (
                        SELECT \(counts.joined(separator: ", "))
                        FROM frequency_sends s
                        WHERE s.app_id = $1 AND s.device_id = i.id AND s.campaign_id <> $3
                          AND s.sent_at > $2::timestamptz - make_interval(secs => \(longest))
                    ) n
                    WHERE \(checks.joined(separator: " AND "))
                    ON CONFLICT (app_id, device_id, campaign_id) DO UPDATE SET sent_at = excluded.sent_at
                    RETURNING device_id
                    """,
                binds: try Self.binds(appID, now, key, deviceIDs)),
            logger: logger)
        var granted = Set<Int64>()
        for try await id in rows.decode(Int64.self) { granted.insert(id) }
        return granted
    }

    /// The first key of the caps' advisory locks (the second is the bucket), mixed with the app.
    static let capsLockSpace: Int32 = 0x4843_4150  // "HCAP"

    static func binds(_ appID: Int64, _ now: Date, _ campaignID: Int64, _ ids: [Int64]) throws -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(appID)
        binds.append(now)
        binds.append(campaignID)
        binds.append(ids)
        return binds
    }

    @discardableResult
    public func pruneFrequencySends(before: Date) async throws -> Int {
        try await DatabaseMetrics.measure("work.pruneFrequencySends") {
            let rows = try await client.query(
                "WITH gone AS (DELETE FROM frequency_sends WHERE sent_at < \(before) RETURNING 1) SELECT count(*) FROM gone",
                logger: logger)
            return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
        }
    }

    public func release(_ lease: ChunkLease, deviceIDs: [Int64]) async throws {
        guard !deviceIDs.isEmpty else { return }
        try await DatabaseMetrics.measure("work.release") {
            _ = try await client.query(
                """
                DELETE FROM frequency_sends
                WHERE app_id = \(lease.appID) AND campaign_id = \(lease.campaignID) AND device_id = ANY(\(deviceIDs)::bigint[])
                """, logger: logger)
        }
    }

    public func bookRate(campaignID: Int64, count: Int, rate: Int) async throws -> Duration {
        let span = Double(count) / Double(max(rate, 1))
        return try await DatabaseMetrics.measure("work.bookRate") {
            // `next_at` counts seconds since the epoch (migration 0034): the ON CONFLICT clause
            // adds the span with immutable arithmetic only, and the wait is computed outside
            // the INSERT, as a Citus cluster requires of both (docs/scaling.md).
            let rows = try await client.query(
                """
                WITH slot AS (
                    INSERT INTO campaign_rate_slots AS r (campaign_id, next_at)
                    VALUES (\(campaignID), extract(epoch FROM clock_timestamp())::float8 + \(span))
                    ON CONFLICT (campaign_id) DO UPDATE
                    SET next_at = greatest(r.next_at + \(span), excluded.next_at)
                    RETURNING next_at
                )
                SELECT next_at - extract(epoch FROM clock_timestamp())::float8 - \(span) FROM slot
                """, logger: logger)
            let wait = try await rows.collect().first?.decode(Double.self) ?? 0
            return wait > 0 ? .milliseconds(Int64(wait * 1000)) : .zero
        }
    }
}
