import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Best-time delivery in SQL (docs/campaigns.md "Best time"): which hour of its window each
/// device of a campaign is sent at, learned from opens when the campaign starts, and which
/// devices are in the fixed-time group.
enum BestTimeQuery {
    /// True for a device (`devices.id`) in the campaign's fixed-time group: a hash of device and
    /// campaign, so the group is fixed for the campaign and the report finds it again.
    static func appendFixedGroup(deviceID column: String, campaignID: Int64, holdoutBasisPoints: Int, to sql: inout SQLBuilder) {
        sql.append("((hashint8extended(\(column), ")
        sql.bind(campaignID)
        sql.append(") & 9223372036854775807) % 10000 < ")
        sql.bind(Int64(holdoutBasisPoints))
        sql.append(")")
    }

    /// The hour after the window's start a device (`devices.id`) is sent at.
    static func appendOffset(campaignID: Int64, slot: BestTimeSlot, to sql: inout SQLBuilder) {
        sql.append("(CASE WHEN ")
        appendFixedGroup(deviceID: "devices.id", campaignID: campaignID, holdoutBasisPoints: slot.holdoutBasisPoints, to: &sql)
        sql.append(" THEN 0 ELSE coalesce((SELECT o.send_offset FROM campaign_send_offsets o WHERE o.campaign_id = ")
        sql.bind(campaignID)
        sql.append(" AND o.device_id = devices.id), ")
        sql.bind(Int32(slot.defaultOffset))
        sql.append(")::integer END)")
    }

    /// Learns each device's hour from its opens over the last 60 days in its own zone, keeps
    /// those that differ from the default, and returns the default: the app's most popular
    /// hour of the window.
    static func learn(
        campaignID: Int64, appID: Int64, window: BestTimeWindow, startHour: Int, defaultTimeZone: String?, now: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        let since = now.addingTimeInterval(-Double(BestTimeWindow.lookbackDays) * 86_400)
        let rows = try await connection.query(
            """
            SELECT e.device_id, coalesce(d.time_zone, ''), extract(epoch FROM e.occurred_at)::float8
            FROM events e JOIN devices d ON d.app_id = e.app_id AND d.id = e.device_id
            WHERE e.app_id = \(appID) AND e.kind = 'opened' AND e.device_id IS NOT NULL
              AND e.occurred_at >= \(since) AND e.occurred_at <= \(now) AND d.invalidated_at IS NULL
            """, logger: logger)
        var calendars = [String: Calendar]()
        var own = [Int64: [Int]]()
        var app = Array(repeating: 0, count: 24)
        for try await (device, zone, epoch) in rows.decode((Int64, String, Double).self) {
            let name = CampaignZones.effectiveZone(zone, defaultTimeZone: defaultTimeZone)
            let calendar =
                calendars[name]
                ?? {
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = TimeZone(identifier: name) ?? TimeZone(secondsFromGMT: 0)!
                    calendars[name] = calendar
                    return calendar
                }()
            let hour = calendar.component(.hour, from: Date(timeIntervalSince1970: epoch))
            own[device, default: Array(repeating: 0, count: 24)][hour] += 1
            app[hour] += 1
        }
        let fallback = window.defaultOffset(app: app, startHour: startHour)
        var devices = [Int64]()
        var offsets = [Int32]()
        for (device, hours) in own {
            let offset = window.offset(own: hours, app: app, startHour: startHour)
            guard offset != fallback else { continue }
            devices.append(device)
            offsets.append(Int32(offset))
        }
        if !devices.isEmpty {
            try await connection.query(
                """
                INSERT INTO campaign_send_offsets (campaign_id, device_id, send_offset)
                SELECT \(campaignID), t.device, t.hours FROM unnest(\(devices)::bigint[], \(offsets)::integer[]) AS t(device, hours)
                """, logger: logger)
        }
        try await connection.query(
            "UPDATE campaigns SET best_time_default_offset = \(Int32(fallback)) WHERE id = \(campaignID)", logger: logger)
        return fallback
    }
}
