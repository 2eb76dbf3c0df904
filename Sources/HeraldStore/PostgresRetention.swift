import APNSCore
import Foundation
import HeraldCore
import Logging
import Metrics
import PostgresNIO

/// Retention in PostgreSQL. One instance at a time: the run holds a session advisory lock on
/// its own connection. Each batch is its own short statement (at most `batchSize` rows, found
/// through an index), so a run never holds long locks or builds a huge transaction, and
/// sending goes on beside it.
public struct PostgresRetention: RetentionStore {
    /// The advisory lock key: "herald retention".
    public static let lockKey: Int64 = 0x6865_7261_6c64_7274

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func purge(_ policy: RetentionPolicy, now: Date, batchSize: Int, dryRun: Bool, actor: String) async throws
        -> RetentionResult?
    {
        try await client.withConnection { connection in
            let locked = try await connection.query("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard locked else { return nil }
            do {
                let result = try await run(policy, now: now, batchSize: max(batchSize, 1), dryRun: dryRun, on: connection)
                if !dryRun {
                    try await AuditLog.record(
                        on: connection, actor: actor, action: "retention.run", appID: nil,
                        details: [
                            "deleted": .object([
                                "deliveries": .int(result.deliveries), "campaigns": .int(result.campaigns),
                                "notifications": .int(result.notifications), "testDeliveries": .int(result.testDeliveries),
                                "events": .int(result.events), "auditLog": .int(result.audit),
                                "webhookMessages": .int(result.webhookMessages),
                            ]),
                            "days": .object([
                                "deliveries": .int(policy.deliveriesDays), "notifications": .int(policy.notificationsDays),
                                "testDeliveries": .int(policy.testDeliveriesDays), "events": .int(policy.eventsDays),
                                "auditLog": .int(policy.auditDays), "webhookMessages": .int(policy.webhookMessagesDays),
                            ]),
                        ], logger: logger)
                }
                _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).collect()
                return result
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger).collect()
                throw error
            }
        }
    }

    private func run(
        _ policy: RetentionPolicy, now: Date, batchSize: Int, dryRun: Bool, on connection: PostgresConnection
    ) async throws -> RetentionResult {
        func cutoff(_ days: Int) -> Date { now.addingTimeInterval(-Double(days) * 86_400) }
        var result = RetentionResult()
        // Finished campaigns past the deliveries period: their ledger goes, a batch at a time.
        let campaigns = try await connection.query(
            """
            SELECT id FROM campaigns
            WHERE finished_at < \(cutoff(policy.deliveriesDays)) AND deliveries_purged_at IS NULL
            ORDER BY finished_at
            """, logger: logger
        ).collect().map { try $0.decode(Int64.self) }
        for campaign in campaigns {
            if dryRun {
                result.deliveries += try await count(
                    "SELECT count(*) FROM deliveries WHERE campaign_id = \(campaign)", on: connection)
            } else {
                result.deliveries += try await repeatDelete(batchSize, on: connection) { limit in
                    """
                    WITH gone AS (
                        DELETE FROM deliveries WHERE ctid = ANY (ARRAY(
                            SELECT ctid FROM deliveries WHERE campaign_id = \(campaign) LIMIT \(limit)))
                        RETURNING 1
                    ) SELECT count(*) FROM gone
                    """
                }
                _ = try await connection.query(
                    "UPDATE campaigns SET deliveries_purged_at = now() WHERE id = \(campaign)", logger: logger
                ).collect()
            }
            result.campaigns += 1
        }
        result.notifications = try await purge(
            table: "notifications", column: "created_at", before: cutoff(policy.notificationsDays), batchSize: batchSize,
            dryRun: dryRun, on: connection)
        result.testDeliveries = try await purge(
            table: "test_deliveries", column: "created_at", before: cutoff(policy.testDeliveriesDays), batchSize: batchSize,
            dryRun: dryRun, on: connection)
        result.events = try await purge(
            table: "events", column: "received_at", before: cutoff(policy.eventsDays), batchSize: batchSize, dryRun: dryRun,
            on: connection)
        result.audit = try await purge(
            table: "audit_log", column: "at", before: cutoff(policy.auditDays), batchSize: batchSize, dryRun: dryRun,
            on: connection)
        result.webhookMessages = try await purge(
            table: "webhook_messages", column: "finished_at", before: cutoff(policy.webhookMessagesDays),
            batchSize: batchSize, dryRun: dryRun, on: connection)
        if !dryRun {
            for (table, count) in [
                ("deliveries", result.deliveries), ("notifications", result.notifications),
                ("test_deliveries", result.testDeliveries), ("events", result.events), ("audit_log", result.audit),
                ("webhook_messages", result.webhookMessages),
            ] where count > 0 {
                Counter(label: "herald_retention_deleted_rows_total", dimensions: [("table", table)]).increment(by: count)
            }
        }
        return result
    }

    /// Deletes `table`'s rows older than `before` (by `column`, which has an index).
    private func purge(
        table: String, column: String, before: Date, batchSize: Int, dryRun: Bool, on connection: PostgresConnection
    ) async throws -> Int {
        if dryRun {
            return try await count(
                "SELECT count(*) FROM \(unescaped: table) WHERE \(unescaped: column) < \(before)", on: connection)
        }
        return try await repeatDelete(batchSize, on: connection) { limit in
            """
            WITH gone AS (
                DELETE FROM \(unescaped: table) WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM \(unescaped: table) WHERE \(unescaped: column) < \(before) LIMIT \(limit)))
                RETURNING 1
            ) SELECT count(*) FROM gone
            """
        }
    }

    /// Runs a batch delete until a batch deletes fewer than `batchSize` rows; the total.
    private func repeatDelete(
        _ batchSize: Int, on connection: PostgresConnection, _ statement: (Int) -> PostgresQuery
    ) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await count(statement(batchSize), on: connection)
            total += deleted
            if deleted < batchSize { return total }
        }
    }

    private func count(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }
}
