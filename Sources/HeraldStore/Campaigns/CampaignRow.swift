import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// How a `campaigns` row is read, with its live counters summed over its chunks
/// (``CampaignChunkTotals``, read apart).
enum CampaignRow {
    static let select = """
        SELECT c.id, c.public_id, c.app_id, c.name, c.notes, c.state, c.template_name, c.template_version,
               c.localization_mode, c.variables::text, c.audience::text, c.push_options::text, c.send_at, c.rate_limit,
               c.audience_bound, c.audience_size, c.failure_reason, c.created_at, c.updated_at, c.started_at,
               c.finished_at, c.variants::text, c.holdout_basis_points, c.attribution_window_seconds,
               c.local_delivery::text, c.quiet_hours_mode, c.quiet_hours_start, c.quiet_hours_end,
               c.frequency_caps::text,
               (SELECT public_id FROM campaign_series WHERE id = c.series_id), c.series_run, c.apns_id_key
        FROM campaigns c
        """

    static func byID(_ id: Int64) -> PostgresQuery {
        "\(unescaped: select) WHERE c.id = \(id)"
    }

    static func byPublicID(_ publicID: UUID) -> PostgresQuery {
        "\(unescaped: select) WHERE c.public_id = \(publicID)"
    }

    /// The campaigns `query` (``select`` with its conditions) reads, with their counters.
    /// `run` runs a statement on the caller's client or connection; `passingUnreachable` (only
    /// outside a transaction) shows counters without a stopped worker's parts, marked partial,
    /// rather than failing.
    static func load(
        _ query: PostgresQuery, passingUnreachable: Bool = false, run: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> [Campaign] {
        let rows = try await run(query).collect()
        let keys = try rows.map { row in
            let cells = row.makeRandomAccess()
            return (appID: try cells[2].decode(Int64.self), id: try cells[0].decode(Int64.self))
        }
        let totals = try await CampaignChunkTotals.read(
            keys, reading: passingUnreachable ? .passingUnreachable : .whole, run: run)
        return try zip(rows, keys).map { row, key in try decode(row, totals: totals[key.id] ?? CampaignChunkTotals()) }
    }

    static func decode(_ row: PostgresRow, totals: CampaignChunkTotals) throws -> Campaign {
        let cells = row.makeRandomAccess()
        let state = try cells[5].decode(String.self)
        let campaignState = try StoreError.decode(state, as: CampaignState.self, column: "campaigns.state")
        let variants = try CampaignJSON.decode([CampaignVariant].self, from: try cells[21].decode(String.self))
        let messages = variants.isEmpty ? [CampaignVariant(name: CampaignVariant.defaultName)] : variants
        var variantCounters = messages.map { VariantCounters(name: $0.name) }
        for counts in totals.variants where counts.count == 6 {
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
            accepted: totals.accepted,
            failed: totals.failed,
            failedByReason: totals.failedByReason,
            invalidated: totals.invalidated,
            skipped: totals.skipped,
            deferred: totals.deferred,
            unsent: totals.unsent,
            heldOut: totals.heldOut,
            finished: campaignState.isFinished,
            variants: variantCounters)
        var withZones = counters
        withZones.zones = totals.zones
        withZones.partial = totals.partial
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
            holdoutBasisPoints: Int(try cells[22].decode(Int32.self)),
            attributionWindow: Int(try cells[23].decode(Int32.self)),
            localDelivery: try cells[24].decode(String?.self).map { try CampaignJSON.decode(LocalDelivery.self, from: $0) },
            quietHoursMode: try StoreError.decode(
                try cells[25].decode(String.self), as: QuietHoursMode.self, column: "campaigns.quiet_hours_mode"),
            quietHours: try Self.quietHours(start: cells[26].decode(Int16?.self), end: cells[27].decode(Int16?.self)))
        campaign.frequencyCaps = try CampaignJSON.decode([FrequencyCap].self, from: try cells[28].decode(String.self))
        if let series = try cells[29].decode(UUID?.self), let run = try cells[30].decode(Int32?.self) {
            campaign.series = Campaign.SeriesLink(id: series, run: Int(run))
        }
        campaign.apnsIDCipher = try cells[31].decode(ByteBuffer?.self).flatMap { APNSIDCipher(key: Array(buffer: $0)) }
        return campaign
    }

    static func quietHours(start: Int16?, end: Int16?) -> QuietHours? {
        guard let start, let end else { return nil }
        return QuietHours(start: Int(start), end: Int(end))
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
