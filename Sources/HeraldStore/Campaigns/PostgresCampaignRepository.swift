import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Campaigns in PostgreSQL. Transitions lock the campaign's row and run the state machine
/// inside the transaction; an edit is one statement; counters are summed over the chunks.
public struct PostgresCampaignRepository: CampaignRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func create(_ draft: CampaignDraft, actor: String) async throws -> Campaign {
        try await DatabaseMetrics.measure("campaigns.create") {
            if let error = draft.validate().first { throw error }
            return try await client.withDomainTransaction(logger: logger) { connection -> Campaign in
                // It writes `campaigns` and reads the chunks' counters back (CampaignLifecycle.fetch).
                try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                let id = try await CampaignInsert.insert(draft, series: nil, on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "campaign.create", appID: draft.appID,
                    details: ["campaignID": .int(Int(id)), "name": .string(draft.name)], logger: logger)
                guard let campaign = try await CampaignLifecycle.fetch(id: id, on: connection, logger: logger) else {
                    throw StoreError.missingRow
                }
                return campaign
            }
        }
    }

    public func get(id: Int64) async throws -> Campaign? {
        try await DatabaseMetrics.measure("campaigns.get") {
            try await CampaignRow.load(CampaignRow.byID(id), passingUnreachable: true) { try await client.query($0, logger: logger) }.first
        }
    }

    public func get(publicID: UUID) async throws -> Campaign? {
        try await DatabaseMetrics.measure("campaigns.get") {
            try await CampaignRow.load(CampaignRow.byPublicID(publicID), passingUnreachable: true) {
                try await client.query($0, logger: logger)
            }.first
        }
    }

    public func list(_ query: CampaignListQuery) async throws -> CampaignPage {
        try await DatabaseMetrics.measure("campaigns.list") {
            let limit = min(max(query.limit, 1), CampaignListQuery.maximumLimit)
            let state = query.state?.rawValue
            // Keyset paging, newest first; NULL parameters switch a filter off.
            let query: PostgresQuery = """
                \(unescaped: CampaignRow.select)
                WHERE (\(query.appID)::bigint IS NULL OR c.app_id = \(query.appID))
                  AND (\(query.appIDs)::bigint[] IS NULL OR c.app_id = ANY (\(query.appIDs)))
                  AND (\(state)::text IS NULL OR c.state = \(state))
                  AND (\(query.cursor)::bigint IS NULL OR c.id < \(query.cursor))
                ORDER BY c.id DESC
                LIMIT \(limit + 1)
                """
            var campaigns = try await CampaignRow.load(query, passingUnreachable: true) { try await client.query($0, logger: logger) }
            var next: Int64?
            if campaigns.count > limit {
                campaigns.removeLast()
                next = campaigns.last?.id
            }
            return CampaignPage(campaigns: campaigns, nextCursor: next)
        }
    }

    public func updateDraft(id: Int64, patch: CampaignPatch, actor: String) async throws -> Campaign? {
        try await DatabaseMetrics.measure("campaigns.updateDraft") {
            if let error = patch.validate().first { throw error }
            return try await client.withDomainTransaction(logger: logger) { connection -> Campaign? in
                // It reads the chunks' counters (CampaignLifecycle.fetch), then writes `campaigns`.
                try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                let locked = try await connection.query(
                    "SELECT 1 FROM campaigns WHERE id = \(id) FOR NO KEY UPDATE", logger: logger)
                guard try await locked.collect().first != nil,
                    let campaign = try await CampaignLifecycle.fetch(id: id, on: connection, logger: logger)
                else { return nil }
                var machine = CampaignStateMachine(state: campaign.state)
                _ = try machine.apply(.edit)
                if let error = patch.validate(against: campaign.definition).first { throw error }
                let draft = patch.applied(to: campaign.definition)
                if patch.audience != nil {
                    _ = try await SavedSegmentResolver.resolve(
                        draft.audience, appID: draft.appID, connection: connection, logger: logger)
                }
                var sql = SQLBuilder("UPDATE campaigns SET ")
                try CampaignColumns(draft).assignments(into: &sql)
                sql.append(", updated_at = now() WHERE id = ")
                sql.bind(id)
                try await connection.query(sql.query, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "campaign.edit", appID: draft.appID,
                    details: ["campaignID": .int(Int(id))], logger: logger)
                return try await CampaignLifecycle.fetch(id: id, on: connection, logger: logger)
            }
        }
    }

    public func transition(id: Int64, event: CampaignEvent, actor: String) async throws -> Campaign? {
        try await DatabaseMetrics.measure("campaigns.transition") {
            try await client.withDomainTransaction(logger: logger) { connection -> Campaign? in
                try await CampaignLifecycle.transition(id: id, event: event, actor: actor, on: connection, logger: logger)
            }
        }
    }

    public func estimate(appID: Int64, filter: AudienceFilter) async throws -> Int {
        try await DatabaseMetrics.measure("campaigns.estimate") {
            if let error = filter.validate().first { throw error }
            let filter = try await SavedSegmentResolver.resolve(filter, appID: appID, client: client, logger: logger)
            let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, client: client, logger: logger)
            var sql = SQLBuilder("SELECT count(*) FROM devices WHERE ")
            try AudienceQuery.appendConditions(to: &sql, appID: appID, filter: filter, events: events)
            let rows = try await client.query(sql.query, logger: logger)
            return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
        }
    }

    public func estimateQuickly(appID: Int64, filter: AudienceFilter, budget: Double) async throws -> AudienceEstimate {
        try await DatabaseMetrics.measure("campaigns.estimateQuickly") {
            if let error = filter.validate().first { throw error }
            let filter = try await SavedSegmentResolver.resolve(filter, appID: appID, client: client, logger: logger)
            do {
                // The exact count, cut off by PostgreSQL itself when it would take longer.
                let milliseconds = max(1, Int(budget * 1000))
                let count = try await client.withTransaction(logger: logger) { connection in
                    _ = try await connection.query("SELECT set_config('statement_timeout', \(String(milliseconds)), true)", logger: logger)
                    let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, on: connection, logger: logger)
                    var sql = SQLBuilder("SELECT count(*) FROM devices WHERE ")
                    try AudienceQuery.appendConditions(to: &sql, appID: appID, filter: filter, events: events)
                    return try await connection.query(sql.query, logger: logger).collect().first?.decode(Int64.self) ?? 0
                }
                return AudienceEstimate(devices: Int(count), exact: true)
            } catch  where PostgresErrors.serverError(error)?.serverInfo?[.sqlState] == PostgresError.Code.queryCanceled.raw {
                return try await estimateFromSample(appID: appID, filter: filter)
            }
        }
    }

    /// The count over a block sample of about 50,000 rows of `devices`, scaled up by the share
    /// of the table read (the whole table when it is smaller; then the count is exact).
    public func estimateFromSample(appID: Int64, filter: AudienceFilter) async throws -> AudienceEstimate {
        let rows = try await client.query(
            "SELECT greatest(reltuples, 1)::float8 FROM pg_class WHERE oid = 'devices'::regclass", logger: logger)
        let tuples = try await rows.collect().first?.decode(Double.self) ?? 1
        let percent = min(100, max(0.01, 5_000_000 / tuples))
        let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, client: client, logger: logger)
        var sql = SQLBuilder("SELECT count(*) FROM devices TABLESAMPLE SYSTEM (\(String(format: "%.4f", percent))) WHERE ")
        try AudienceQuery.appendConditions(to: &sql, appID: appID, filter: filter, events: events)
        let sampled = try await client.query(sql.query, logger: logger).collect().first?.decode(Int64.self) ?? 0
        return AudienceEstimate(devices: Int((Double(sampled) * 100 / percent).rounded()), exact: percent >= 100)
    }

    public func estimateOverCap(appID: Int64, filter: AudienceFilter, caps: [FrequencyCap]) async throws -> Int {
        guard !caps.isEmpty else { return 0 }
        return try await DatabaseMetrics.measure("campaigns.estimateOverCap") {
            if let error = filter.validate().first { throw error }
            let filter = try await SavedSegmentResolver.resolve(filter, appID: appID, client: client, logger: logger)
            let events = try await EventLookup.choose(appID: appID, segments: filter.segmentParts, client: client, logger: logger)
            // The devices at a cap now, from the sends counted, then those of them the filter takes.
            var sql = SQLBuilder(
                """
                WITH capped AS (
                    SELECT DISTINCT s.device_id
                    FROM frequency_sends s
                    CROSS JOIN unnest(
                """)
            sql.bind(caps.map { Int64($0.limit) })
            sql.append("::bigint[], ")
            sql.bind(caps.map { Double($0.window) })
            sql.append("::float8[]) AS cap(lim, win) WHERE s.app_id = ")
            sql.bind(appID)
            sql.append(
                """
                 AND s.sent_at > now() - make_interval(secs => cap.win)
                    GROUP BY s.device_id, cap.lim, cap.win HAVING count(*) >= cap.lim
                )
                SELECT count(*) FROM devices WHERE id IN (SELECT device_id FROM capped) AND 
                """)
            try AudienceQuery.appendConditions(to: &sql, appID: appID, filter: filter, events: events)
            let rows = try await client.query(sql.query, logger: logger)
            return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
        }
    }

    public func deliveries(campaignID: Int64, query: DeliveryListQuery) async throws -> DeliveryPage {
        try await DatabaseMetrics.measure("campaigns.deliveries") {
            let limit = min(max(query.limit, 1), DeliveryListQuery.maximumLimit)
            let outcome = query.outcome?.rawValue
            // Keyset paging by device ID; the app ID leads the ledger's key.
            let rows = try await client.query(
                """
                SELECT l.device_id, l.outcome, l.status, l.reason, l.apns_id, l.language, l.created_at, d.token, d.user_id,
                       l.variant
                FROM deliveries l
                LEFT JOIN devices d ON d.app_id = l.app_id AND d.id = l.device_id AND d.part = l.part
                WHERE l.app_id = (SELECT app_id FROM campaigns WHERE id = \(campaignID))
                  AND l.campaign_id = \(campaignID) AND l.device_id > \(query.cursor ?? 0)
                  AND (\(outcome)::text IS NULL OR l.outcome = \(outcome))
                  AND (\(query.reason)::text IS NULL OR l.reason = \(query.reason))
                ORDER BY l.device_id
                LIMIT \(limit + 1)
                """, logger: logger)
            var entries = try await rows.collect().map(Self.decodeEntry)
            var next: Int64?
            if entries.count > limit {
                entries.removeLast()
                next = entries.last?.record.deviceID
            }
            return DeliveryPage(entries: entries, nextCursor: next)
        }
    }

    public func timeline(campaignID: Int64) async throws -> CampaignTimeline {
        try await DatabaseMetrics.measure("campaigns.timeline") {
            var timeline = CampaignTimeline()
            let languages = try await client.query(
                """
                SELECT language, sum(accepted)::bigint, sum(failed)::bigint, sum(skipped)::bigint, sum(deferred)::bigint,
                       sum(unsent)::bigint
                FROM campaign_chunk_languages
                WHERE app_id = (SELECT app_id FROM campaigns WHERE id = \(campaignID)) AND campaign_id = \(campaignID)
                GROUP BY language
                ORDER BY sum(accepted + failed + skipped + deferred + unsent) DESC, language
                """, logger: logger)
            for try await (language, accepted, failed, skipped, deferred, unsent) in languages.decode(
                (String, Int64, Int64, Int64, Int64, Int64).self)
            {
                timeline.languages.append(
                    CampaignTimeline.Language(
                        language: language, accepted: Int(accepted), failed: Int(failed), skipped: Int(skipped),
                        deferred: Int(deferred), unsent: Int(unsent)))
            }
            let minutes = try await client.query(
                """
                SELECT minute, sum(accepted)::bigint, sum(failed)::bigint
                FROM campaign_chunk_minutes
                WHERE app_id = (SELECT app_id FROM campaigns WHERE id = \(campaignID)) AND campaign_id = \(campaignID)
                GROUP BY minute ORDER BY minute
                """, logger: logger)
            for try await (minute, accepted, failed) in minutes.decode((Date, Int64, Int64).self) {
                timeline.minutes.append(CampaignTimeline.Minute(minute: minute, accepted: Int(accepted), failed: Int(failed)))
            }
            return timeline
        }
    }

    /// Accepted notifications by the language they were rendered in and skipped devices by
    /// reason, most first: what marketing asks after a campaign.
    public func breakdown(campaignID: Int64) async throws -> CampaignBreakdown {
        try await DatabaseMetrics.measure("campaigns.breakdown") {
            let rows = try await client.query(
                """
                SELECT outcome, coalesce(CASE outcome WHEN 'accepted' THEN language ELSE reason END, '-'), count(*)
                FROM deliveries
                WHERE app_id = (SELECT app_id FROM campaigns WHERE id = \(campaignID))
                  AND campaign_id = \(campaignID) AND outcome IN ('accepted', 'skipped')
                GROUP BY 1, 2 ORDER BY 3 DESC, 2
                """, logger: logger)
            var breakdown = CampaignBreakdown()
            for try await (outcome, key, count) in rows.decode((String, String, Int64).self) {
                if outcome == "accepted" {
                    breakdown.acceptedByLanguage.append((key, Int(count)))
                } else {
                    breakdown.skippedByReason.append((key, Int(count)))
                }
            }
            return breakdown
        }
    }

    static func decodeEntry(_ row: PostgresRow) throws -> DeliveryLedgerEntry {
        let (deviceID, outcome, status, reason, apnsID, language, recordedAt, token, userID, variant) = try row.decode(
            (Int64, String, Int32?, String?, UUID?, String?, Date, ByteBuffer?, String?, Int16?).self)
        let record = DeliveryRecord(
            deviceID: deviceID,
            outcome: DeliveryOutcome(
                kind: try StoreError.decode(outcome, as: DeliveryOutcome.Kind.self, column: "deliveries.outcome"),
                status: status.map(Int.init), reason: reason),
            apnsID: apnsID,
            language: language.flatMap { LanguageTag($0) },
            variant: variant.map(Int.init))
        return DeliveryLedgerEntry(
            record: record, token: try token.map { try DeviceToken(bytes: Array(buffer: $0)) }, userID: userID,
            recordedAt: recordedAt)
    }
}

/// A finished (or running) campaign's outcomes by language and by skip reason.
public struct CampaignBreakdown: Sendable {
    public var acceptedByLanguage: [(language: String, count: Int)] = []
    public var skippedByReason: [(reason: String, count: Int)] = []

    public init() {}
}
