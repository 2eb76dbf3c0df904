import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Writes a new draft campaign row in the caller's transaction: the one place drafts are
/// inserted, for users' campaigns and for the runs of a series.
enum CampaignInsert {
    /// Inserts `draft` (a run of `series` when given) and checks what a draft must name: a
    /// saved segment the app has, templates the app owns. Returns the new campaign's ID.
    static func insert(
        _ draft: CampaignDraft, series: (id: Int64, run: Int)?, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int64 {
        let variables = try CampaignJSON.encode(draft.variables)
        let audience = try CampaignJSON.encode(draft.audience)
        let pushOptions = try CampaignJSON.encode(draft.pushOptions)
        let rateLimit = draft.rateLimit.map { Int32(clamping: $0) }
        let variants = try CampaignJSON.encode(draft.variants)
        let local = try draft.localDelivery.map { try CampaignJSON.encode($0) }
        let seriesRun = series.map { Int32(clamping: $0.run) }
        // The first campaign of a month starts a new block of IDs, a new partition of the
        // ledger (migration 0030, docs/scaling.md "The ledger by month").
        _ = try await connection.query("SELECT herald_roll_ledger()", logger: logger).collect()
        let rows = try await connection.query(
            """
            INSERT INTO campaigns (app_id, name, notes, template_name, localization_mode, variables, audience,
                                   push_options, send_at, rate_limit, variants, holdout_basis_points,
                                   attribution_window_seconds, local_delivery, quiet_hours_mode, series_id, series_run)
            VALUES (\(draft.appID), \(draft.name), \(draft.notes), \(draft.templateName),
                    \(draft.localization.rawValue), \(variables)::jsonb, \(audience)::jsonb, \(pushOptions)::jsonb,
                    \(draft.sendAt), \(rateLimit), \(variants)::jsonb, \(Int32(draft.holdoutBasisPoints)),
                    \(Int32(draft.attributionWindow)), \(local)::jsonb, \(draft.quietHoursMode.rawValue),
                    \(series?.id), \(seriesRun))
            RETURNING id
            """, logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        let id = try row.decode(Int64.self)
        _ = try await SavedSegmentResolver.resolve(draft.audience, appID: draft.appID, connection: connection, logger: logger)
        try await CampaignLifecycle.checkTemplateOwners(campaignID: id, on: connection, logger: logger)
        return id
    }
}
