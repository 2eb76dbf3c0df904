import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension CampaignLifecycle {
    /// Counts a started campaign's audience (the filter's devices up to the frozen bound) and
    /// records it, after the start has committed: the engines send meanwhile, and the
    /// campaign cannot complete before its size is known (`CampaignFacts.audienceCounted`), so
    /// the count is recorded first and the campaign then completes here if its last chunk
    /// finished meanwhile. Nothing for a campaign already counted, by another instance too;
    /// returns whether this call recorded the count.
    @discardableResult
    static func countAudience(campaignID: Int64, actor: String, client: PostgresClient, logger: Logger) async throws -> Bool {
        let size = try await client.withConnection { connection -> Int64? in
            let rows = try await connection.query(
                """
                SELECT app_id, audience::text, push_options::text, audience_bound, started_at FROM campaigns
                WHERE id = \(campaignID) AND audience_size IS NULL AND started_at IS NOT NULL
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let (appID, audienceJSON, pushOptionsJSON, bound, startedAt) = try row.decode(
                (Int64, String, String, Int64?, Date?).self)
            let filter = try CampaignRow.audience(audienceJSON, pushOptions: pushOptionsJSON, startedAt: startedAt)
            var count = SQLBuilder("SELECT count(*) FROM devices WHERE ")
            let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, on: connection, logger: logger)
            try AudienceQuery.appendConditions(to: &count, appID: appID, filter: filter, events: events)
            count.append(" AND id <= ")
            count.bind(bound ?? 0)
            return try await connection.query(count.query, logger: logger).collect().first?.decode(Int64.self) ?? 0
        }
        guard let size else { return false }
        return try await client.withDomainTransaction(logger: logger) { connection in
            let written = try await connection.query(
                """
                UPDATE campaigns SET audience_size = \(size)
                WHERE id = \(campaignID) AND audience_size IS NULL RETURNING id
                """, logger: logger
            ).collect()
            guard !written.isEmpty else { return false }
            _ = try await completeIfDone(id: campaignID, actor: actor, on: connection, logger: logger)
            return true
        }
    }

    /// Started campaigns whose count is missing though they started over `age` ago: the
    /// instance that started them stopped before it counted. A campaign cancelled or failed
    /// meanwhile is counted too: what it did not reach is then unsent.
    static func uncounted(olderThan age: Duration, client: PostgresClient, logger: Logger) async throws -> [Int64] {
        try await client.query(
            """
            SELECT id FROM campaigns
            WHERE audience_size IS NULL AND started_at < now() - make_interval(secs => \(Double(age.components.seconds)))
            ORDER BY id LIMIT 8
            """, logger: logger
        ).collect().map { try $0.decode(Int64.self) }
    }
}
