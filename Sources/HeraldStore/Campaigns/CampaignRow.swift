import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// How a `campaigns` row is read, with its live counters summed over its chunks.
enum CampaignRow {
    static let select = """
        SELECT c.id, c.public_id, c.app_id, c.name, c.notes, c.state, c.template_name, c.template_version,
               c.localization_mode, c.variables::text, c.audience::text, c.push_options::text, c.send_at, c.rate_limit,
               c.audience_bound, c.audience_size, c.failure_reason, c.created_at, c.updated_at, c.started_at,
               c.finished_at, k.accepted, k.failed, k.skipped, k.deferred, k.unsent, k.invalidated, k.failed_by_reason,
               c.variants::text, c.holdout_basis_points, c.attribution_window_seconds, k.held_out, v.counts,
               c.local_delivery::text, c.quiet_hours_mode, c.quiet_hours_start, c.quiet_hours_end, z.zones,
               c.frequency_caps::text,
               (SELECT public_id FROM campaign_series WHERE id = c.series_id), c.series_run, c.apns_id_key
        FROM campaigns c
        CROSS JOIN LATERAL (
            SELECT coalesce(sum(accepted), 0)::bigint AS accepted, coalesce(sum(failed), 0)::bigint AS failed,
                   coalesce(sum(skipped), 0)::bigint AS skipped, coalesce(sum(deferred), 0)::bigint AS deferred,
                   coalesce(sum(unsent), 0)::bigint AS unsent, coalesce(sum(invalidated), 0)::bigint AS invalidated,
                   coalesce(jsonb_agg(failed_by_reason), '[]'::jsonb)::text AS failed_by_reason,
                   coalesce(sum(held_out), 0)::bigint AS held_out
            FROM campaign_chunks WHERE app_id = c.app_id AND campaign_id = c.id
        ) k
        CROSS JOIN LATERAL (
            SELECT coalesce(jsonb_agg(jsonb_build_array(variant, accepted, failed, skipped, deferred, unsent)), '[]'::jsonb)::text
                   AS counts
            FROM (
                SELECT variant, sum(accepted) AS accepted, sum(failed) AS failed, sum(skipped) AS skipped,
                       sum(deferred) AS deferred, sum(unsent) AS unsent
                FROM campaign_chunk_variants WHERE app_id = c.app_id AND campaign_id = c.id
                GROUP BY variant
            ) per_variant
        ) v
        CROSS JOIN LATERAL (
            SELECT coalesce(jsonb_agg(jsonb_build_array(device_zone, time_zone, not_before, pending, size, done, due)
                                      ORDER BY device_zone), '[]'::jsonb)::text AS zones
            FROM (
                SELECT device_zone, min(time_zone) AS time_zone,
                       extract(epoch FROM min(not_before) FILTER (WHERE state = 'pending'))::float8 AS not_before,
                       count(*) FILTER (WHERE state = 'pending') AS pending, sum(size) AS size,
                       sum(accepted + failed + skipped + deferred + unsent + held_out) AS done,
                       bool_or(state = 'pending' AND (not_before IS NULL OR not_before <= now())) AS due
                FROM campaign_chunks
                WHERE app_id = c.app_id AND campaign_id = c.id AND device_zone IS NOT NULL
                GROUP BY device_zone
            ) per_zone
        ) z
        """

    static func byID(_ id: Int64) -> PostgresQuery {
        "\(unescaped: select) WHERE c.id = \(id)"
    }

    static func byPublicID(_ publicID: UUID) -> PostgresQuery {
        "\(unescaped: select) WHERE c.public_id = \(publicID)"
    }

    static func decode(_ row: PostgresRow) throws -> Campaign {
        let cells = row.makeRandomAccess()
        let state = try cells[5].decode(String.self)
        let campaignState = try StoreError.decode(state, as: CampaignState.self, column: "campaigns.state")
        let reasonsByChunk = try CampaignJSON.decode(
            [[String: Int]].self, from: try cells[27].decode(String.self))
        let failedByReason = reasonsByChunk.reduce(into: [String: Int]()) { total, chunk in
            total.merge(chunk, uniquingKeysWith: +)
        }
        let variants = try CampaignJSON.decode([CampaignVariant].self, from: try cells[28].decode(String.self))
        let messages = variants.isEmpty ? [CampaignVariant(name: CampaignVariant.defaultName)] : variants
        var variantCounters = messages.map { VariantCounters(name: $0.name) }
        for counts in try CampaignJSON.decode([[Int]].self, from: try cells[32].decode(String.self)) where counts.count == 6 {
            guard variantCounters.indices.contains(counts[0]) else { continue }
            variantCounters[counts[0]].accepted = counts[1]
            variantCounters[counts[0]].failed = counts[2]
            variantCounters[counts[0]].skipped = counts[3]
            variantCounters[counts[0]].deferred = counts[4]
            variantCounters[counts[0]].unsent = counts[5]
        }
        let counters = CampaignCounters(
            // NULL while a started campaign's audience is being counted.
            frozenAudienceSize: Int(try cells[15].decode(Int64?.self) ?? 0),
            accepted: Int(try cells[21].decode(Int64.self)),
            failed: Int(try cells[22].decode(Int64.self)),
            failedByReason: failedByReason,
            invalidated: Int(try cells[26].decode(Int64.self)),
            skipped: Int(try cells[23].decode(Int64.self)),
            deferred: Int(try cells[24].decode(Int64.self)),
            unsent: Int(try cells[25].decode(Int64.self)),
            heldOut: Int(try cells[31].decode(Int64.self)),
            finished: campaignState.isFinished,
            variants: variantCounters)
        var withZones = counters
        withZones.zones = try Self.zones(try cells[37].decode(String.self))
        withZones.audienceCounting = try cells[15].decode(Int64?.self) == nil && cells[19].decode(Date?.self) != nil
        var campaign = Campaign(
            id: try cells[0].decode(Int64.self),
            publicID: try cells[1].decode(UUID.self),
            appID: try cells[2].decode(Int64.self),
            name: try cells[3].decode(String.self),
            notes: try cells[4].decode(String?.self),
            state: campaignState,
            templateName: try cells[6].decode(String.self),
            templateVersion: try cells[7].decode(Int32?.self).map(Int.init),
            localization: try StoreError.decode(
                try cells[8].decode(String.self), as: Campaign.LocalizationMode.self, column: "campaigns.localization"),
            variables: try CampaignJSON.decode([String: PayloadValue].self, from: try cells[9].decode(String.self)),
            audience: try audience(
                try cells[10].decode(String.self), pushOptions: try cells[11].decode(String.self),
                startedAt: try cells[19].decode(Date?.self)),
            pushOptions: try CampaignJSON.decode(PushOptions.self, from: try cells[11].decode(String.self)),
            sendAt: try cells[12].decode(Date?.self),
            rateLimit: try cells[13].decode(Int32?.self).map(Int.init),
            audienceBound: try cells[14].decode(Int64?.self),
            counters: withZones,
            failureReason: try cells[16].decode(String?.self),
            createdAt: try cells[17].decode(Date.self),
            updatedAt: try cells[18].decode(Date.self),
            startedAt: try cells[19].decode(Date?.self),
            finishedAt: try cells[20].decode(Date?.self),
            variants: variants,
            holdoutBasisPoints: Int(try cells[29].decode(Int32.self)),
            attributionWindow: Int(try cells[30].decode(Int32.self)),
            localDelivery: try cells[33].decode(String?.self).map { try CampaignJSON.decode(LocalDelivery.self, from: $0) },
            quietHoursMode: try StoreError.decode(
                try cells[34].decode(String.self), as: QuietHoursMode.self, column: "campaigns.quiet_hours_mode"),
            quietHours: try Self.quietHours(start: cells[35].decode(Int16?.self), end: cells[36].decode(Int16?.self)))
        campaign.frequencyCaps = try CampaignJSON.decode([FrequencyCap].self, from: try cells[38].decode(String.self))
        if let series = try cells[39].decode(UUID?.self), let run = try cells[40].decode(Int32?.self) {
            campaign.series = Campaign.SeriesLink(id: series, run: Int(run))
        }
        campaign.apnsIDCipher = try cells[41].decode(ByteBuffer?.self).flatMap { APNSIDCipher(key: Array(buffer: $0)) }
        return campaign
    }

    static func quietHours(start: Int16?, end: Int16?) -> QuietHours? {
        guard let start, let end else { return nil }
        return QuietHours(start: Int(start), end: Int(end))
    }

    /// Zone rows: [device zone, effective zone, next not-before, pending chunks, size, done, due].
    static func zones(_ json: String) throws -> [ZoneProgress] {
        struct Row: Decodable {
            var deviceZone: String
            var timeZone: String
            var notBefore: Double?
            var pending: Int
            var size: Int
            var done: Int
            var due: Bool?

            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                deviceZone = try container.decode(String.self)
                timeZone = try container.decode(String.self)
                notBefore = try container.decodeIfPresent(Double.self)
                pending = try container.decode(Int.self)
                size = try container.decodeIfPresent(Int.self) ?? 0
                done = try container.decodeIfPresent(Int.self) ?? 0
                due = try container.decodeIfPresent(Bool.self)
            }
        }
        return try JSONDecoder().decode([Row].self, from: Data(json.utf8)).map { row in
            // Done when no chunk is left; sending when one may be claimed now; else waiting for
            // its moment (or for its quiet hours to end).
            let state: ZoneProgress.State = row.pending == 0 ? .done : (row.due == true ? .sending : .waiting)
            return ZoneProgress(
                timeZone: row.deviceZone, effectiveTimeZone: row.timeZone,
                notBefore: state == .waiting ? row.notBefore.map { Date(timeIntervalSince1970: $0) } : nil,
                state: state, devices: row.size, done: row.done)
        }
    }
}

/// The columns a draft is kept in, each with its value: the insert and the edit both write
/// these, so a field of ``CampaignDraft`` is written in one place. The app is not among them: it
/// is set once, by the insert (and is the distribution column on a cluster).
struct CampaignColumns {
    struct Column {
        let name: String
        let write: (inout SQLBuilder) -> Void
    }

    private(set) var columns: [Column] = []

    init(_ draft: CampaignDraft) throws {
        add("name", draft.name)
        add("notes", draft.notes)
        add("template_name", draft.templateName)
        add("localization_mode", draft.localization.rawValue)
        try add(json: "variables", draft.variables)
        // The Live Activity start's token type and the segment time are read from other columns.
        var audience = draft.audience
        audience.startTokenType = nil
        audience.segmentTime = nil
        try add(json: "audience", audience)
        try add(json: "push_options", draft.pushOptions)
        add("send_at", draft.sendAt)
        add("rate_limit", draft.rateLimit.map { Int32(clamping: $0) })
        try add(json: "variants", draft.variants)
        add("holdout_basis_points", Int32(clamping: draft.holdoutBasisPoints))
        add("attribution_window_seconds", Int32(clamping: draft.attributionWindow))
        try add(json: "local_delivery", draft.localDelivery)
        add("quiet_hours_mode", draft.quietHoursMode.rawValue)
    }

    private mutating func add<Value: PostgresDynamicTypeEncodable>(_ name: String, _ value: Value?) {
        columns.append(Column(name: name) { $0.bind(value) })
    }

    private mutating func add(json name: String, _ value: (some Encodable)?) throws {
        let text = try value.map { try CampaignJSON.encode($0) }
        columns.append(
            Column(name: name) { sql in
                sql.bind(text)
                sql.append("::jsonb")
            })
    }

    /// `name, notes, …` for an insert's column list.
    var names: String { columns.map(\.name).joined(separator: ", ") }

    /// The values, bound in the order of ``names``.
    func values(into sql: inout SQLBuilder) {
        for (index, column) in columns.enumerated() {
            if index > 0 { sql.append(", ") }
            column.write(&sql)
        }
    }

    /// `name = $n, notes = $m, …` for an update.
    func assignments(into sql: inout SQLBuilder) {
        for (index, column) in columns.enumerated() {
            sql.append(index > 0 ? ", \(column.name) = " : "\(column.name) = ")
            column.write(&sql)
        }
    }
}

/// The JSON columns of campaigns: sorted keys, ISO 8601 dates (whole seconds).
extension CampaignRow {
    /// The audience a campaign goes to: its filter and, for a Live Activity start, the devices
    /// holding a start token of its attributes type.
    /// A started campaign's segment counts its windows back from the start.
    static func audience(
        _ audienceJSON: String, pushOptions pushOptionsJSON: String, startedAt: Date? = nil
    ) throws
        -> AudienceFilter
    {
        var filter = try CampaignJSON.decode(AudienceFilter.self, from: audienceJSON)
        filter.startTokenType = try CampaignJSON.decode(PushOptions.self, from: pushOptionsJSON).liveActivity?.attributesType
        filter.segmentTime = startedAt
        return filter
    }
}

enum CampaignJSON {
    static func encode(_ value: some Encodable) throws -> String {
        try CanonicalJSON.text(value)
    }

    /// Rows written before times kept their milliseconds hold whole seconds; both are read.
    static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try CanonicalJSON.decode(type, from: text)
    }
}
