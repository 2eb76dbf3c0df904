import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresCampaignWork {
    public func reserve(_ lease: ChunkLease, deviceIDs: [Int64], caps: [FrequencyCap], now: Date) async throws -> Set<Int64> {
        guard !deviceIDs.isEmpty, !caps.isEmpty else { return Set(deviceIDs) }
        let limits = caps.map { Int64($0.limit) }
        let windows = caps.map { Double($0.window) }
        let longest = windows.max() ?? 0
        return try await DatabaseMetrics.measure("work.reserve") {
            try await client.withDomainTransaction(logger: logger) { connection -> Set<Int64> in
                let chunk = try await connection.query(
                    """
                    SELECT chunk FROM campaign_chunks
                    WHERE app_id = \(lease.appID) AND campaign_id = \(lease.campaignID) AND chunk = \(Int32(lease.chunk))
                      AND lease_token = \(lease.token) AND state = 'pending'
                    """, logger: logger)
                guard try await !chunk.collect().isEmpty else { throw CampaignWorkError.leaseLost }
                // The devices' rows, in ID order (so two batches never wait on each other in a
                // circle): whoever holds them decides their places.
                try await connection.query(
                    """
                    SELECT id FROM devices WHERE app_id = \(lease.appID) AND id = ANY(\(deviceIDs)::bigint[])
                    ORDER BY id FOR NO KEY UPDATE
                    """, logger: logger)
                try await connection.query(
                    """
                    DELETE FROM frequency_sends
                    WHERE app_id = \(lease.appID) AND device_id = ANY(\(deviceIDs)::bigint[])
                      AND sent_at <= \(now) - make_interval(secs => \(longest))
                    """, logger: logger)
                let rows = try await connection.query(
                    """
                    INSERT INTO frequency_sends AS f (app_id, device_id, campaign_id, sent_at)
                    SELECT \(lease.appID), i.id, \(lease.campaignID), \(now)
                    FROM unnest(\(deviceIDs)::bigint[]) AS i(id)
                    WHERE NOT EXISTS (
                        SELECT 1 FROM unnest(\(limits)::bigint[], \(windows)::float8[]) AS cap(lim, win)
                        WHERE (SELECT count(*) FROM frequency_sends s
                               WHERE s.app_id = \(lease.appID) AND s.device_id = i.id
                                 AND s.campaign_id <> \(lease.campaignID)
                                 AND s.sent_at > \(now) - make_interval(secs => cap.win)) >= cap.lim)
                    ON CONFLICT (app_id, device_id, campaign_id) DO UPDATE SET sent_at = f.sent_at
                    RETURNING device_id
                    """, logger: logger)
                var granted = Set<Int64>()
                for try await id in rows.decode(Int64.self) { granted.insert(id) }
                return granted
            }
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
            let rows = try await client.query(
                """
                INSERT INTO campaign_rate_slots AS r (campaign_id, next_at)
                VALUES (\(campaignID), clock_timestamp() + make_interval(secs => \(span)))
                ON CONFLICT (campaign_id) DO UPDATE
                SET next_at = greatest(r.next_at, clock_timestamp()) + make_interval(secs => \(span))
                RETURNING extract(epoch FROM next_at - clock_timestamp())::float8 - \(span)
                """, logger: logger)
            let wait = try await rows.collect().first?.decode(Double.self) ?? 0
            return wait > 0 ? .milliseconds(Int64(wait * 1000)) : .zero
        }
    }
}
