import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// A campaign's live counters, summed over its chunks (and their counters by variant), read
/// for many campaigns at once. Read apart from the campaigns' rows: on a Citus cluster the chunk
/// tables are distributed (migration 0040) and `campaigns` is a reference table, and Citus plans
/// neither a lateral subquery nor a correlated one that sums a distributed table for each row of
/// a reference table. Two grouped reads over the chunks of the campaigns asked for work on both
/// engines.
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
    /// Whether the chunks of some parts could not be read (a Citus worker stopped): the figures
    /// cover the others.
    var partial = false

    /// One group of a campaign's chunks: those of one registered zone (nil: sent at once) in one
    /// read, every part or one.
    private struct ZoneRow {
        var campaignID: Int64
        var deviceZone: String?
        var timeZone: String?
        var notBefore: Double?
        var pending: Int
        var size: Int
        /// accepted, failed, skipped, deferred, unsent, invalidated, held out.
        var counts: [Int]
        var failedByReason: [[String: Int]]
        var due: Bool

        mutating func add(_ other: ZoneRow) {
            timeZone = [timeZone, other.timeZone].compactMap { $0 }.min()
            notBefore = [notBefore, other.notBefore].compactMap { $0 }.min()
            pending += other.pending
            size += other.size
            counts = zip(counts, other.counts).map(+)
            failedByReason += other.failedByReason
            due = due || other.due
        }
    }

    /// How the chunks are read.
    enum Reading {
        /// Every part at once; a stopped worker fails the read (inside a transaction).
        case whole
        /// Every part at once, and part by part when a worker does not answer, leaving its parts
        /// out and marking the totals partial (outside a transaction).
        case passingUnreachable
        /// Part by part (what a stopped worker leads to; tests compare it with ``whole``).
        case partByPart
    }

    /// The totals of each campaign in `campaigns` (its app and ID); a campaign without chunks
    /// yet has none. `run` runs a statement on the caller's client or connection.
    static func read(
        _ campaigns: [(appID: Int64, id: Int64)], reading: Reading,
        run: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> [Int64: CampaignChunkTotals] {
        guard !campaigns.isEmpty else { return [:] }
        let apps = Array(Set(campaigns.map(\.appID))).sorted()
        let ids = campaigns.map(\.id)
        func read(_ part: Int32?) async throws -> ([ZoneRow], [[Int]]) {
            (
                try await zoneRows(apps: apps, ids: ids, part: part, run: run),
                try await variantRows(apps: apps, ids: ids, part: part, run: run)
            )
        }
        var reads = [([ZoneRow], [[Int]])]()
        var unanswered = 0
        switch reading {
        case .whole:
            reads = [try await read(nil)]
        case .passingUnreachable:
            (reads, unanswered) = try await PartLabels.readPassingUnreachable(run: run) { [try await read($0)] }
        case .partByPart:
            for label in try await PartLabels.all(run: run) { reads.append(try await read(label)) }
        }
        var groups = [Int64: [String?: ZoneRow]]()
        for row in reads.flatMap(\.0) {
            if groups[row.campaignID]?[row.deviceZone] == nil {
                groups[row.campaignID, default: [:]][row.deviceZone] = row
            } else {
                groups[row.campaignID]?[row.deviceZone]?.add(row)
            }
        }
        var totals = [Int64: CampaignChunkTotals]()
        for (campaignID, zones) in groups {
            var total = CampaignChunkTotals()
            for row in zones.values {
                total.accepted += row.counts[0]
                total.failed += row.counts[1]
                total.skipped += row.counts[2]
                total.deferred += row.counts[3]
                total.unsent += row.counts[4]
                total.invalidated += row.counts[5]
                total.heldOut += row.counts[6]
                for reasons in row.failedByReason { total.failedByReason.merge(reasons, uniquingKeysWith: +) }
            }
            total.zones = zones.values.compactMap(Self.progress).sorted { $0.timeZone < $1.timeZone }
            totals[campaignID] = total
        }
        var variants = [Int64: [Int: [Int]]]()
        for row in reads.flatMap(\.1) {
            let campaignID = Int64(row[0])
            let counts = Array(row[2...])
            variants[campaignID, default: [:]][row[1]] = zip(variants[campaignID]?[row[1]] ?? [0, 0, 0, 0, 0], counts).map(+)
        }
        for (campaignID, byVariant) in variants {
            totals[campaignID, default: CampaignChunkTotals()].variants = byVariant.keys.sorted().map { [$0] + byVariant[$0]! }
        }
        if unanswered > 0 {
            for id in ids { totals[id, default: CampaignChunkTotals()].partial = true }
        }
        return totals
    }

    /// A zone's progress; nil for the chunks of a campaign sent at once.
    private static func progress(_ row: ZoneRow) -> ZoneProgress? {
        guard let deviceZone = row.deviceZone else { return nil }
        // Done when no chunk is left; sending when one may be claimed now; else waiting for its
        // moment (or for its quiet hours to end).
        let state: ZoneProgress.State = row.pending == 0 ? .done : (row.due ? .sending : .waiting)
        return ZoneProgress(
            timeZone: deviceZone, effectiveTimeZone: row.timeZone ?? deviceZone,
            notBefore: state == .waiting ? row.notBefore.map { Date(timeIntervalSince1970: $0) } : nil,
            state: state, devices: row.size, done: row.counts[0...4].reduce(0, +) + row.counts[6])
    }

    private static func zoneRows(
        apps: [Int64], ids: [Int64], part: Int32?, run: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> [ZoneRow] {
        try await run(
            """
            SELECT campaign_id, device_zone, min(time_zone),
                   extract(epoch FROM min(not_before) FILTER (WHERE state = 'pending'))::float8,
                   count(*) FILTER (WHERE state = 'pending'), coalesce(sum(size), 0)::bigint,
                   sum(accepted)::bigint, sum(failed)::bigint, sum(skipped)::bigint, sum(deferred)::bigint,
                   sum(unsent)::bigint, sum(invalidated)::bigint, sum(held_out)::bigint,
                   jsonb_agg(failed_by_reason)::text,
                   coalesce(bool_or(state = 'pending' AND (not_before IS NULL OR not_before <= now())), false)
            FROM campaign_chunks
            WHERE app_id = ANY(\(apps)::bigint[]) AND campaign_id = ANY(\(ids)::bigint[])
              AND \(unescaped: PartLabels.condition("campaign_chunks", label: part))
            GROUP BY campaign_id, device_zone
            """
        ).collect().map { row in
            let cells = row.makeRandomAccess()
            return ZoneRow(
                campaignID: try cells[0].decode(Int64.self), deviceZone: try cells[1].decode(String?.self),
                timeZone: try cells[2].decode(String?.self), notBefore: try cells[3].decode(Double?.self),
                pending: Int(try cells[4].decode(Int64.self)), size: Int(try cells[5].decode(Int64.self)),
                counts: try (6...12).map { Int(try cells[$0].decode(Int64.self)) },
                failedByReason: try CampaignJSON.decode([[String: Int]].self, from: try cells[13].decode(String.self)),
                due: try cells[14].decode(Bool.self))
        }
    }

    /// [campaign, variant, accepted, failed, skipped, deferred, unsent] rows.
    private static func variantRows(
        apps: [Int64], ids: [Int64], part: Int32?, run: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> [[Int]] {
        try await run(
            """
            SELECT campaign_id, variant, sum(accepted)::bigint, sum(failed)::bigint, sum(skipped)::bigint,
                   sum(deferred)::bigint, sum(unsent)::bigint
            FROM campaign_chunk_variants
            WHERE app_id = ANY(\(apps)::bigint[]) AND campaign_id = ANY(\(ids)::bigint[])
              AND \(unescaped: PartLabels.condition("campaign_chunk_variants", label: part))
            GROUP BY campaign_id, variant
            """
        ).collect().map { row in
            let (campaignID, variant, accepted, failed, skipped, deferred, unsent) = try row.decode(
                (Int64, Int16, Int64, Int64, Int64, Int64, Int64).self)
            return [Int(campaignID), Int(variant), Int(accepted), Int(failed), Int(skipped), Int(deferred), Int(unsent)]
        }
    }
}
