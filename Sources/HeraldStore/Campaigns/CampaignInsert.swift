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
        let columns = try CampaignColumns(draft)
        // The first campaign of a month starts a new block of IDs, a new partition of the
        // ledger (migration 0030, docs/scaling.md "The ledger by month").
        _ = try await connection.query("SELECT herald_roll_ledger()", logger: logger).collect()
        let key = try await apnsIDKey(appID: draft.appID, on: connection, logger: logger)
        var sql = SQLBuilder("INSERT INTO campaigns (app_id, apns_id_key, series_id, series_run, \(columns.names)) VALUES (")
        sql.bind(draft.appID)
        sql.append(", ")
        sql.bind(key.map { ByteBuffer(bytes: $0) })
        sql.append(", ")
        sql.bind(series?.id)
        sql.append(", ")
        sql.bind(series.map { Int32(clamping: $0.run) })
        sql.append(", ")
        columns.values(into: &sql)
        sql.append(") RETURNING id")
        let rows = try await connection.query(sql.query, logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        let id = try row.decode(Int64.self)
        _ = try await SavedSegmentResolver.resolve(draft.audience, appID: draft.appID, connection: connection, logger: logger)
        try await CampaignLifecycle.checkTemplateOwners(campaignID: id, on: connection, logger: logger)
        return id
    }

    /// The app's apns-id key (made with the app, or by migration 0036 for an app from before);
    /// nil for an app without one, whose campaigns keep UUIDv5 ids, or that does not exist,
    /// which the insert then refuses by its foreign key. Only read here: making the key in this
    /// transaction (an UPDATE of `apps`, a reference table on a Citus cluster, written on every
    /// node) once left a campaign's creation waiting for minutes on a cluster.
    static func apnsIDKey(appID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [UInt8]? {
        let rows = try await connection.query("SELECT apns_id_key FROM apps WHERE id = \(appID)", logger: logger).collect()
        return try rows.first?.decode(ByteBuffer?.self).map { Array(buffer: $0) }
    }
}
