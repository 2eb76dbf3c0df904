import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Campaign transitions inside a caller's transaction: the row is locked, the facts the state
/// machine decides on are read, the machine decides, its actions are performed here, and the
/// new state is written, all or nothing. Shared by the repository (user events) and the work
/// queue (start, complete, fail).
enum CampaignLifecycle {
    /// Applies `event`; nil for an unknown campaign. A `complete` that finds chunks pending
    /// changes nothing and returns the campaign as it is.
    static func transition(
        id: Int64, event: CampaignEvent, actor: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Campaign? {
        try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
        // NO KEY UPDATE: transitions take turns, while batches inserting deliveries (whose
        // foreign key takes KEY SHARE on this row) are not held up.
        let locked = try await connection.query(
            """
            SELECT c.state, c.app_id, c.audience::text, a.bundle_id, c.push_options::text, a.disabled_at IS NOT NULL,
                   c.audience_size IS NOT NULL
            FROM campaigns c JOIN apps a ON a.id = c.app_id WHERE c.id = \(id) FOR NO KEY UPDATE OF c
            """, logger: logger)
        guard let row = try await locked.collect().first else { return nil }
        let (stateText, appID, audienceJSON, bundleID, pushOptionsJSON, appDisabled, counted) = try row.decode(
            (String, Int64, String, String, String, Bool, Bool).self)
        let from = try StoreError.decode(stateText, as: CampaignState.self, column: "campaigns.state")
        let pushOptions = try CampaignJSON.decode(PushOptions.self, from: pushOptionsJSON)
        let pending = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM campaign_chunks WHERE app_id = \(appID) AND campaign_id = \(id) AND state = 'pending')
            """, logger: logger)
        let facts = CampaignFacts(
            bundleID: bundleID, appDisabled: appDisabled, startsLiveActivities: pushOptions.liveActivity != nil,
            pendingChunks: try await pending.collect().first?.decode(Bool.self) ?? false, audienceCounted: counted)
        var machine = CampaignStateMachine(state: from)
        let actions = try machine.apply(event, facts: facts)
        guard machine.state != from || !actions.isEmpty else {
            return try await fetch(id: id, on: connection, logger: logger)
        }

        var recordStart = false
        var recordFinish = false
        var failureReason: String?
        var announce = false
        var wake = false
        var completeNext = false
        for action in actions {
            switch action {
            case .pinSavedSegment:
                try await SavedSegmentResolver.pin(
                    campaignID: id, appID: appID, audienceJSON: audienceJSON, connection: connection, logger: logger)
            case .prepareLiveActivityStarts:
                guard let start = pushOptions.liveActivity else { break }
                let audience = try CampaignJSON.decode(AudienceFilter.self, from: audienceJSON)
                try await LiveActivityStarts.prepare(
                    start, appID: appID, environment: audience.environment, on: connection, logger: logger)
            case .pinTemplateVersion:
                try await pinTemplateVersion(campaignID: id, on: connection, logger: logger)
            case .freezeAudience:
                let filter = try CampaignRow.audience(audienceJSON, pushOptions: pushOptionsJSON)
                try await freezeAudience(campaignID: id, appID: appID, filter: filter, on: connection, logger: logger)
            case .recordStart:
                recordStart = true
            case .recordFinish:
                recordFinish = true
            case .recordFailure(let reason):
                failureReason = reason
            case .announceFinish:
                announce = true
            case .wakeEngines:
                wake = true
            case .completeNext:
                completeNext = true
            }
        }
        // The moments are set by name, not by a CASE: on Citus `campaigns` is a reference table,
        // where a CASE may hold only immutable functions (docs/scaling.md).
        let moments = (recordStart ? ", started_at = now()" : "") + (recordFinish ? ", finished_at = now()" : "")
        try await connection.query(
            """
            UPDATE campaigns SET state = \(machine.state.rawValue), updated_at = now()\(unescaped: moments),
                failure_reason = coalesce(\(failureReason), failure_reason)
            WHERE id = \(id)
            """, logger: logger)
        if recordFinish {
            // A best-time campaign's hours are read by its chunks only; the report finds its groups by hash.
            try await connection.query("DELETE FROM campaign_send_offsets WHERE campaign_id = \(id)", logger: logger)
        }
        if wake {
            try await connection.query("SELECT pg_notify(\(WorkSignal.channel), '')", logger: logger)
        }
        var details: [String: PayloadValue] = [
            "campaignID": .int(Int(id)), "from": .string(from.rawValue), "to": .string(machine.state.rawValue),
        ]
        if let failureReason { details["reason"] = .string(failureReason) }
        try await AuditLog.record(
            on: connection, actor: actor, action: "campaign.\(event.name)", appID: appID, details: details, logger: logger)
        let campaign = try await fetch(id: id, on: connection, logger: logger)
        if announce, let campaign {
            try await WebhookOutbox.campaignFinished(campaign, bundleID: bundleID, on: connection, logger: logger)
        }
        if completeNext, let completed = try await completeIfDone(id: id, actor: actor, on: connection, logger: logger) {
            return completed
        }
        return campaign
    }

    /// Completes the campaign when it is running and none of its chunks is pending (the state
    /// machine decides); nil when it does not. The one place a campaign completes after its
    /// last chunk is marked done, in the caller's transaction. The row lock comes before the
    /// count, so two last chunks finishing at once take turns and the second counts the first
    /// as done.
    static func completeIfDone(
        id: Int64, actor: String, on connection: PostgresConnection, logger: Logger
    )
        async throws -> Campaign?
    {
        do {
            let campaign = try await transition(id: id, event: .complete, actor: actor, on: connection, logger: logger)
            return campaign?.state == .completed ? campaign : nil
        } catch is CampaignError {
            // Paused (it completes when resumed), cancelled or failed meanwhile, or completed
            // by the chunk that finished just before this one.
            return nil
        }
    }

    /// The campaign as its transaction sees it now.
    static func fetch(id: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Campaign? {
        try await CampaignRow.load(CampaignRow.byID(id)) { try await connection.query($0, logger: logger) }.first
    }

    /// Pins the latest version of the campaign's template; a campaign cannot be scheduled
    /// before its template has a version, nor with a push type its template does not send (a
    /// background campaign needs a background template: no text, data in payload.custom).
    private static func pinTemplateVersion(
        campaignID: Int64, on connection: PostgresConnection, logger: Logger
    )
        async throws
    {
        try await checkTemplateOwners(campaignID: campaignID, on: connection, logger: logger)
        let rows = try await connection.query(
            """
            UPDATE campaigns c SET template_version = latest.version
            FROM (
                SELECT v.version, coalesce(v.document->'payload'->>'pushType', 'alert') AS push_type
                FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = (SELECT template_name FROM campaigns WHERE id = \(campaignID))
                ORDER BY v.version DESC LIMIT 1
            ) latest
            WHERE c.id = \(campaignID)
            RETURNING latest.push_type, c.push_options->>'pushType', c.template_name
            """, logger: logger)
        guard let row = try await rows.collect().first else {
            throw ValidationError(field: "templateName", reason: noVersionYet)
        }
        let (templateType, campaignType, name) = try row.decode((String, String?, String).self)
        if let problem = PushTypeRule.campaignProblem(pushType: campaignType, templateType: templateType, name: name) {
            throw problem
        }
        try await pinVariantVersions(campaignID: campaignID, on: connection, logger: logger)
        try await planLocalTime(campaignID: campaignID, on: connection, logger: logger)
    }

    /// A campaign uses its own app's templates and shared ones, never another app's (its
    /// message's template or a variant's). Templates not saved yet are checked when it is
    /// scheduled. Another app's template is refused exactly as a template that does not exist
    /// is, so a key learns no template name of an app it cannot see.
    static func checkTemplateOwners(campaignID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT CASE WHEN t.name = c.template_name THEN -1
                        ELSE (SELECT min(v.position) - 1 FROM jsonb_array_elements(c.variants) WITH ORDINALITY
                              AS v(variant, position) WHERE v.variant->>'templateName' = t.name) END AS place
            FROM campaigns c
            JOIN templates t ON t.app_id IS NOT NULL AND t.app_id <> c.app_id
                AND (t.name = c.template_name
                     OR t.name IN (SELECT v->>'templateName' FROM jsonb_array_elements(c.variants) v))
            WHERE c.id = \(campaignID)
            ORDER BY 1 LIMIT 1
            """, logger: logger)
        guard let place = try await rows.collect().first?.decode(Int64.self) else { return }
        throw ValidationError(
            field: place < 0 ? "templateName" : "variants[\(place)].templateName", reason: noVersionYet)
    }

    /// What a campaign naming a template it cannot use hears, whether the template is missing
    /// or another app's.
    static let noVersionYet = "no template of this name has a version yet; add or sync it first"

    /// Notes when the campaign was scheduled (a local-time zone whose moment had passed then is
    /// late) and, for a local-time campaign, starts it when the first zone's moment comes: the
    /// audience is frozen then. Refuses a moment that has passed in every zone.
    private static func planLocalTime(campaignID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            "UPDATE campaigns SET scheduled_at = now() WHERE id = \(campaignID) RETURNING local_delivery::text, scheduled_at",
            logger: logger)
        guard let row = try await rows.collect().first else { return }
        let (json, now) = try row.decode((String?, Date).self)
        guard let json else { return }
        let local = try CampaignJSON.decode(LocalDelivery.self, from: json)
        if let error = local.checkSchedulable(now: now) { throw error }
        let start = max(now, local.earliest ?? now)
        try await connection.query("UPDATE campaigns SET send_at = \(start) WHERE id = \(campaignID)", logger: logger)
    }

    /// Pins each variant's template version (the one it names, or its template's latest) with
    /// the same push-type rule, so every message of the campaign renders a fixed version.
    private static func pinVariantVersions(
        campaignID: Int64, on connection: PostgresConnection, logger: Logger
    )
        async throws
    {
        let rows = try await connection.query(
            "SELECT variants::text, push_options::text, template_name, template_version FROM campaigns WHERE id = \(campaignID)",
            logger: logger)
        guard let row = try await rows.collect().first else { return }
        let (variantsJSON, optionsJSON, campaignTemplate, campaignVersion) = try row.decode((String, String, String, Int32?).self)
        var variants = try CampaignJSON.decode([CampaignVariant].self, from: variantsJSON)
        guard !variants.isEmpty else { return }
        let campaignOptions = try CampaignJSON.decode(PushOptions.self, from: optionsJSON)
        for index in variants.indices {
            let variant = variants[index]
            let name = variant.templateName ?? campaignTemplate
            let wanted = variant.templateVersion ?? (variant.templateName == nil ? campaignVersion.map(Int.init) : nil)
            let found = try await connection.query(
                """
                SELECT v.version, coalesce(v.document->'payload'->>'pushType', 'alert')
                FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = \(name) AND (\(wanted.map { Int32(clamping: $0) })::integer IS NULL OR v.version = \(wanted.map { Int32(clamping: $0) }))
                ORDER BY v.version DESC LIMIT 1
                """, logger: logger)
            guard let version = try await found.collect().first else {
                throw ValidationError(
                    field: wanted == nil ? "variants[\(index)].templateName" : "variants[\(index)].templateVersion",
                    reason: wanted == nil ? noVersionYet : "template \(name) has no version \(wanted ?? 0)")
            }
            let (number, templateType) = try version.decode((Int32, String).self)
            let options = campaignOptions.overlaid(by: variant.pushOptions)
            if let problem = PushTypeRule.variantProblem(
                index: index, pushType: options.pushType, templateType: templateType, name: name, version: Int(number))
            {
                throw problem
            }
            variants[index].templateVersion = Int(number)
        }
        try await connection.query(
            "UPDATE campaigns SET variants = \(try CampaignJSON.encode(variants))::jsonb WHERE id = \(campaignID)",
            logger: logger)
    }

    /// Freezes the audience: the app's highest device ID now is the bound (devices registered
    /// later are not in it); then splits the bucket space into chunks. The size is left unknown
    /// (NULL): counting a large audience takes a second or more on rows PostgreSQL has not
    /// visited yet, so it is counted after this commits (``countAudience``), while the engines
    /// send.
    private static func freezeAudience(
        campaignID: Int64, appID: Int64, filter: AudienceFilter, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let maxRows = try await connection.query(
            "SELECT coalesce(max(id), 0) FROM devices WHERE app_id = \(appID)", logger: logger)
        let bound = try await maxRows.collect().first?.decode(Int64.self) ?? 0

        // The app's frequency caps hold for the campaign as they are now.
        try await connection.query(
            """
            UPDATE campaigns c SET audience_bound = \(bound), audience_size = NULL, frequency_caps = a.frequency_caps
            FROM apps a WHERE c.id = \(campaignID) AND a.id = c.app_id
            """, logger: logger)
        if let zoning = try await Zoning.load(campaignID: campaignID, on: connection, logger: logger) {
            try await zoning.createChunks(
                campaignID: campaignID, appID: appID, filter: filter, bound: bound, on: connection, logger: logger)
            return
        }
        let chunks = (0..<CampaignChunking.chunkCount).map { Int32($0) }
        let ranges = chunks.map { CampaignChunking.buckets(ofChunk: Int($0)) }
        let froms = ranges.map { Int32($0.lowerBound) }
        let tos = ranges.map { Int32($0.upperBound) }
        try await connection.query(
            """
            INSERT INTO campaign_chunks (app_id, campaign_id, chunk, part, bucket_from, bucket_to)
            SELECT \(appID), \(campaignID), t.chunk, herald_part(t.bucket_from), t.bucket_from, t.bucket_to
            FROM unnest(\(chunks)::integer[], \(froms)::integer[], \(tos)::integer[]) AS t(chunk, bucket_from, bucket_to)
            """, logger: logger)
    }
}
