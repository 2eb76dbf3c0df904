import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Who pruned, invalidated or changed what: one row per action, written in the same
/// transaction as the change.
enum AuditLog {
    static func record(
        on connection: PostgresConnection, actor: String, action: String, appID: Int64?,
        details: [String: PayloadValue], logger: Logger
    ) async throws {
        let json = try CanonicalJSON.text(details)
        try await connection.query(
            """
            INSERT INTO audit_log (actor, action, app_id, details)
            VALUES (\(actor), \(action), \(appID), \(json)::jsonb)
            """, logger: logger)
    }
}
