import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Deletes dead devices in bounded batches, each its own short transaction, so `devices` is
/// never locked for long; a dry run counts with the same criteria.
public struct PostgresDevicePruner: DevicePruner {
    let client: PostgresClient
    let batchSize: Int
    let logger: Logger

    public init(client: PostgresClient, batchSize: Int = 1000, logger: Logger) {
        self.client = client
        self.batchSize = batchSize
        self.logger = logger.forDatabase
    }

    public func prune(_ request: PruneRequest, actor: String) async throws -> PruneResult {
        try await DatabaseMetrics.measure("devices.prune") {
            var byReason = [String: Int]()
            var batches = 0
            if request.dryRun {
                let rows = try await client.query(
                    Self.query(
                        """
                        SELECT coalesce(invalidation_reason, $4), count(*) FROM devices d WHERE \(Self.criteria) GROUP BY 1
                        """, request), logger: logger)
                for try await (reason, count) in rows.decode((String, Int64).self) {
                    byReason[reason] = Int(count)
                }
            } else {
                // Each batch's deletions and its audit entry commit together: after a crash the
                // audit log still names every device deleted.
                while true {
                    let batch = try await client.withTransaction(logger: logger) { connection in
                        let rows = try await connection.query(
                            Self.query(
                                """
                                WITH victims AS (
                                    SELECT app_id, id FROM devices d WHERE \(Self.criteria) LIMIT $5
                                ), gone AS (
                                    -- The criteria again, on the row the DELETE locks: a device
                                    -- registered again after the victims were chosen (its new
                                    -- row version is what a blocked DELETE re-checks) is kept.
                                    DELETE FROM devices d USING victims v
                                    WHERE d.app_id = v.app_id AND d.id = v.id AND \(Self.rowCriteria)
                                    RETURNING coalesce(d.invalidation_reason, $4) AS reason
                                )
                                SELECT reason, count(*) FROM gone GROUP BY reason
                                """, request, batchSize: batchSize), logger: logger)
                        var deleted = [String: Int]()
                        for try await (reason, count) in rows.decode((String, Int64).self) { deleted[reason] = Int(count) }
                        if !deleted.isEmpty {
                            var details = Self.details(request, byReason: deleted)
                            details["batch"] = .int(batches + 1)
                            try await AuditLog.record(
                                on: connection, actor: actor, action: "devices.prune.batch", appID: request.appID,
                                details: details, logger: logger)
                        }
                        return deleted
                    }
                    let deleted = batch.values.reduce(0, +)
                    for (reason, count) in batch { byReason[reason, default: 0] += count }
                    if deleted == 0 { break }
                    batches += 1
                    if deleted < batchSize { break }
                }
            }
            let result = PruneResult(dryRun: request.dryRun, byReason: byReason, batches: batches)
            var details = Self.details(request, byReason: byReason)
            details["batches"] = .int(batches)
            try await client.withConnection { connection in
                try await AuditLog.record(
                    on: connection, actor: actor, action: request.dryRun ? "devices.prune.dry-run" : "devices.prune",
                    appID: request.appID, details: details, logger: logger)
            }
            return result
        }
    }

    private static func details(_ request: PruneRequest, byReason: [String: Int]) -> [String: PayloadValue] {
        var details: [String: PayloadValue] = [
            "dryRun": .bool(request.dryRun),
            "byReason": .object(byReason.mapValues { .int($0) }),
            "total": .int(byReason.values.reduce(0, +)),
        ]
        let formatter = ISO8601DateFormatter()
        if let date = request.invalidatedBefore { details["invalidatedBefore"] = .string(formatter.string(from: date)) }
        if let date = request.notRegisteredSince { details["notRegisteredSince"] = .string(formatter.string(from: date)) }
        return details
    }

    /// The prune criteria over binds $1-$3; both queries share them so a dry run counts
    /// exactly what a real run deletes.
    private static let criteria = """
        ($1::bigint IS NULL OR app_id = $1)
        AND \(rowCriteria)
        """

    /// What makes one device dead, on columns of `d`.
    private static let rowCriteria = "((d.invalidated_at < $2::timestamptz) OR (d.registered_at < $3::timestamptz))"

    private static func query(_ sql: String, _ request: PruneRequest, batchSize: Int? = nil) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(request.appID)
        binds.append(request.invalidatedBefore)
        binds.append(request.notRegisteredSince)
        binds.append(PruneResult.staleReason)
        if let batchSize { binds.append(Int64(batchSize)) }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
