import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The audit log, newest first by ID (keyset paging over the primary key; the actor and action
/// filters have their own `(actor, id)` and `(action, id)` indexes).
public struct PostgresAuditRepository: AuditRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func list(_ query: AuditQuery) async throws -> AuditPage {
        try await DatabaseMetrics.measure("audit.list") {
            let rows = try await client.query(
                """
                SELECT l.id, l.at, l.actor, l.action, a.bundle_id, l.details::text
                FROM audit_log l LEFT JOIN apps a ON a.id = l.app_id
                WHERE (\(query.actor)::text IS NULL OR l.actor = \(query.actor))
                  AND (\(query.action)::text IS NULL OR l.action = \(query.action))
                  AND (\(query.appID)::bigint IS NULL OR l.app_id = \(query.appID))
                  AND (\(query.since)::timestamptz IS NULL OR l.at >= \(query.since))
                  AND (\(query.cursor)::bigint IS NULL OR l.id < \(query.cursor))
                ORDER BY l.id DESC
                LIMIT \(query.limit + 1)
                """, logger: logger)
            var entries = try await rows.collect().map { row -> AuditEntry in
                let (id, at, actor, action, bundleID, details) = try row.decode((Int64, Date, String, String, String?, String).self)
                return AuditEntry(
                    id: id, at: at, actor: actor, action: action, bundleID: bundleID,
                    details: try JSONReader.parse(details.utf8))
            }
            var next: Int64?
            if entries.count > query.limit {
                entries.removeLast()
                next = entries.last?.id
            }
            return AuditPage(entries: entries, nextCursor: next)
        }
    }
}
