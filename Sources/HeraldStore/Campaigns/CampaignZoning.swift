import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// A campaign sent in zones, as it starts: its local-time moment and quiet hours (the app's,
/// frozen on the campaign now), and the app's default zone.
struct Zoning {
    var localDelivery: LocalDelivery?
    var quietHours: QuietHours?
    var defaultTimeZone: String?
    var scheduledAt: Date

    /// Nil for a campaign sent as one: no local time, and no quiet hours that apply.
    static func load(campaignID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Zoning? {
        let rows = try await connection.query(
            """
            UPDATE campaigns c
            SET quiet_hours_start = CASE WHEN c.quiet_hours_mode = 'ignore' THEN NULL ELSE a.quiet_hours_start END,
                quiet_hours_end = CASE WHEN c.quiet_hours_mode = 'ignore' THEN NULL ELSE a.quiet_hours_end END
            FROM apps a
            WHERE c.id = \(campaignID) AND a.id = c.app_id
            RETURNING c.local_delivery::text, c.quiet_hours_start, c.quiet_hours_end, a.default_time_zone, c.scheduled_at
            """, logger: logger)
        guard let row = try await rows.collect().first else { return nil }
        let (local, start, end, zone, scheduled) = try row.decode((String?, Int16?, Int16?, String?, Date?).self)
        // The transaction's time when unscheduled, asked apart: on Citus `campaigns` is a
        // reference table, whose RETURNING takes only immutable functions (docs/scaling.md).
        let scheduledAt: Date
        if let scheduled {
            scheduledAt = scheduled
        } else {
            scheduledAt = try await connection.query("SELECT now()", logger: logger).collect().first?.decode(Date.self) ?? Date()
        }
        let zoning = Zoning(
            localDelivery: try local.map { try CampaignJSON.decode(LocalDelivery.self, from: $0) },
            quietHours: CampaignRow.quietHours(start: start, end: end), defaultTimeZone: zone, scheduledAt: scheduledAt)
        return zoning.localDelivery == nil && zoning.quietHours == nil ? nil : zoning
    }

    /// Counts the audience per zone and bucket (and, for best time, per hour of the window,
    /// once each device's hour is learned) and writes its chunks.
    func createChunks(
        campaignID: Int64, appID: Int64, filter: AudienceFilter, bound: Int64, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        var slot: BestTimeSlot?
        if let local = localDelivery, let window = local.bestTime {
            let startHour = (QuietHours.minutes(local.time) ?? 0) / 60
            let fallback = try await BestTimeQuery.learn(
                campaignID: campaignID, appID: appID, window: window, startHour: startHour, defaultTimeZone: defaultTimeZone,
                now: Date(), on: connection, logger: logger)
            slot = BestTimeSlot(offset: 0, defaultOffset: fallback, holdoutBasisPoints: window.holdoutBasisPoints)
        }
        var query = SQLBuilder("SELECT coalesce(time_zone, ''), bucket::integer, ")
        if let slot {
            BestTimeQuery.appendOffset(campaignID: campaignID, slot: slot, to: &query)
        } else {
            query.append("0")
        }
        query.append(", count(*) FROM devices WHERE ")
        let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, on: connection, logger: logger)
        try AudienceQuery.appendConditions(to: &query, appID: appID, filter: filter, events: events)
        query.append(" AND id <= ")
        query.bind(bound)
        query.append(" GROUP BY 1, 2, 3")
        var counts = [Int: [String: [Int]]]()
        for try await (zone, bucket, offset, count) in try await connection.query(query.query, logger: logger)
            .decode((String, Int32, Int32, Int64).self)
        {
            counts[Int(offset), default: [:]][zone, default: Array(repeating: 0, count: DeviceBucket.count)][Int(bucket)] =
                Int(count)
        }
        let chunks = counts.keys.sorted().flatMap { offset in
            CampaignZones.chunks(
                counts: counts[offset] ?? [:], localDelivery: localDelivery, scheduledAt: scheduledAt,
                defaultTimeZone: defaultTimeZone, sendOffset: slot == nil ? nil : offset)
        }
        guard !chunks.isEmpty else { return }
        let numbers = chunks.indices.map { Int32($0) }
        let froms = chunks.map { Int32($0.buckets.lowerBound) }
        let tos = chunks.map { Int32($0.buckets.upperBound) }
        let deviceZones = chunks.map(\.deviceZone)
        let zones = chunks.map(\.timeZone)
        // Arrays cannot hold NULL here: the epoch and "" stand for "none".
        let notBefore = chunks.map { $0.notBefore ?? Date(timeIntervalSince1970: 0) }
        let sizes = chunks.map { Int64($0.size) }
        let skips = chunks.map { $0.skipReason ?? "" }
        // -1 stands for "not a best-time chunk".
        let offsets = chunks.map { Int32($0.sendOffset ?? -1) }
        try await connection.query(
            """
            INSERT INTO campaign_chunks (app_id, campaign_id, chunk, part, bucket_from, bucket_to, device_zone, time_zone,
                                         not_before, size, skip_reason, send_offset)
            SELECT \(appID), \(campaignID), t.chunk, herald_part(t.bucket_from), t.bucket_from, t.bucket_to, t.device_zone, t.time_zone,
                   NULLIF(t.not_before, 'epoch'), t.size, NULLIF(t.skip_reason, ''), NULLIF(t.send_offset, -1)
            FROM unnest(\(numbers)::integer[], \(froms)::integer[], \(tos)::integer[], \(deviceZones)::text[],
                        \(zones)::text[], \(notBefore)::timestamptz[], \(sizes)::bigint[], \(skips)::text[],
                        \(offsets)::integer[])
                AS t(chunk, bucket_from, bucket_to, device_zone, time_zone, not_before, size, skip_reason, send_offset)
            """, logger: logger)
    }
}
