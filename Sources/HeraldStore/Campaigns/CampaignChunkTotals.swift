import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// A campaign's live counters, summed over its chunks (and their counters by variant), read
/// for many campaigns at once. Read apart from the campaigns' rows, so that the chunk tables can
/// be distributed on a Citus cluster (migration 0040): `campaigns` is a reference table there, and
/// Citus plans neither a lateral subquery nor a correlated one that sums a distributed table for
/// each row of a reference table. Two grouped reads over the chunks of the campaigns asked for
/// work on both engines and wherever the chunks lie.
struct CampaignChunkTotals: Sendable, Equatable {
    var accepted = 0
    var failed = 0
    var skipped = 0
    var deferred = 0
    var unsent = 0
    var invalidated = 0
    var heldOut = 0
    var failedByReason: [String: Int] = [:]
    /// A local-time campaign's zones, in the order of their registered zone.
    var zones: [ZoneProgress] = []
    /// [variant, accepted, failed, skipped, deferred, unsent] for each variant with an outcome.
    var variants: [[Int]] = []

    /// The totals of each campaign in `campaigns` (its app and ID); a campaign without chunks
    /// yet has none. `run` runs a statement on the caller's client or connection.
    static func read(
        _ campaigns: [(appID: Int64, id: Int64)],
        run: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> [Int64: CampaignChunkTotals] {
        guard !campaigns.isEmpty else { return [:] }
        let apps = Array(Set(campaigns.map(\.appID))).sorted()
        let ids = campaigns.map(\.id)
        var totals = [Int64: CampaignChunkTotals]()
        // Per campaign and registered zone (NULL for the chunks of a campaign sent at once).
        let zoneRows = try await run(
            """
            SELECT campaign_id, device_zone, min(time_zone),
                   extract(epoch FROM min(not_before) FILTER (WHERE state = 'pending'))::float8,
                   count(*) FILTER (WHERE state = 'pending'), coalesce(sum(size), 0)::bigint,
                   sum(accepted)::bigint, sum(failed)::bigint, sum(skipped)::bigint, sum(deferred)::bigint,
                   sum(unsent)::bigint, sum(invalidated)::bigint, sum(held_out)::bigint,
                   jsonb_agg(failed_by_reason)::text,
                   bool_or(state = 'pending' AND (not_before IS NULL OR not_before <= now()))
            FROM campaign_chunks
            WHERE app_id = ANY(\(apps)::bigint[]) AND campaign_id = ANY(\(ids)::bigint[])
            GROUP BY campaign_id, device_zone
            ORDER BY campaign_id, device_zone
            """
        ).collect()
        for row in zoneRows {
            let cells = row.makeRandomAccess()
            let campaignID = try cells[0].decode(Int64.self)
            let counts = try (6...12).map { Int(try cells[$0].decode(Int64.self)) }
            var total = totals[campaignID] ?? CampaignChunkTotals()
            total.accepted += counts[0]
            total.failed += counts[1]
            total.skipped += counts[2]
            total.deferred += counts[3]
            total.unsent += counts[4]
            total.invalidated += counts[5]
            total.heldOut += counts[6]
            for reasons in try CampaignJSON.decode([[String: Int]].self, from: try cells[13].decode(String.self)) {
                total.failedByReason.merge(reasons, uniquingKeysWith: +)
            }
            if let deviceZone = try cells[1].decode(String?.self) {
                let pending = try cells[4].decode(Int64.self)
                // Done when no chunk is left; sending when one may be claimed now; else waiting
                // for its moment (or for its quiet hours to end).
                let state: ZoneProgress.State =
                    pending == 0 ? .done : (try cells[14].decode(Bool?.self) == true ? .sending : .waiting)
                total.zones.append(
                    ZoneProgress(
                        timeZone: deviceZone, effectiveTimeZone: try cells[2].decode(String?.self) ?? deviceZone,
                        notBefore: state == .waiting
                            ? try cells[3].decode(Double?.self).map { Date(timeIntervalSince1970: $0) } : nil,
                        state: state, devices: Int(try cells[5].decode(Int64.self)),
                        done: counts[0...4].reduce(0, +) + counts[6]))
            }
            totals[campaignID] = total
        }
        let variantRows = try await run(
            """
            SELECT campaign_id, variant, sum(accepted)::bigint, sum(failed)::bigint, sum(skipped)::bigint,
                   sum(deferred)::bigint, sum(unsent)::bigint
            FROM campaign_chunk_variants
            WHERE app_id = ANY(\(apps)::bigint[]) AND campaign_id = ANY(\(ids)::bigint[])
            GROUP BY campaign_id, variant
            ORDER BY campaign_id, variant
            """
        ).collect()
        for row in variantRows {
            let (campaignID, variant, accepted, failed, skipped, deferred, unsent) = try row.decode(
                (Int64, Int16, Int64, Int64, Int64, Int64, Int64).self)
            totals[campaignID, default: CampaignChunkTotals()].variants.append(
                [Int(variant), Int(accepted), Int(failed), Int(skipped), Int(deferred), Int(unsent)])
        }
        return totals
    }
}
