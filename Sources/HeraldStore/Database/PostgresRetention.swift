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

    public func purge(
        _ policy: RetentionPolicy, now: Date, batchSize: Int, dryRun: Bool, actor: String
    ) async throws
        -> RetentionResult?
    {
        try await client.withConnection { connection in
            let locked =
                try await connection.query("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger)
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
                                "ledgerPartitions": .int(result.ledgerPartitions),
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
        // Whole months of the ledger first; then what is left of finished campaigns past the
        // deliveries period goes a batch at a time.
        let dropped = try await dropLedgerPartitions(
            before: cutoff(policy.deliveriesDays), dryRun: dryRun, into: &result, on: connection)
        let campaigns = try await connection.query(
            """
            SELECT id, app_id FROM campaigns
            WHERE finished_at < \(cutoff(policy.deliveriesDays)) AND deliveries_purged_at IS NULL
            ORDER BY finished_at
            """, logger: logger
        ).collect().map { try $0.decode((Int64, Int64).self) }
        for (campaign, app) in campaigns where !dropped.contains(where: { $0.contains(campaign) }) {
            if dryRun {
                result.deliveries += try await count(
                    "SELECT count(*) FROM deliveries WHERE app_id = \(app) AND campaign_id = \(campaign)", on: connection)
            } else {
                // A batch by the ledger's key, not by row address: a Citus cluster refuses a
                // delete by ctid on a distributed table (docs/scaling.md). The IDs as an array
                // (one value for the plan) keep the delete to index lookups of the key; as an
                // `IN (subquery)` the planner read the whole partition for every batch (3.5 times
                // slower than by ctid on 1M rows; this way 1.1 times, BENCHMARKS.md).
                result.deliveries += try await repeatDelete(batchSize, on: connection) { limit in
                    """
                    WITH gone AS (
                        DELETE FROM deliveries
                        WHERE app_id = \(app) AND campaign_id = \(campaign) AND device_id = ANY (ARRAY(
                            SELECT device_id FROM deliveries WHERE app_id = \(app) AND campaign_id = \(campaign)
                            LIMIT \(limit)))
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

    /// Drops the ledger's partitions (migration 0030: a partition holds the campaigns created in
    /// one month) that can go whole: no campaign can be added to it any more, and none of its
    /// campaigns with rows is unfinished or finished since `before`. Its finished campaigns are
    /// marked purged with the drop. The drop holds the ledger's lock for a moment: it waits at
    /// most 2 s for it (sending waits behind it meanwhile), and when it cannot have it the rows
    /// go the batch way. Returns the ID ranges dropped (or, in a dry run, that would be).
    private func dropLedgerPartitions(
        before: Date, dryRun: Bool, into result: inout RetentionResult, on connection: PostgresConnection
    ) async throws -> [Range<Int64>] {
        // No campaign of the block that has rows is unfinished or finished since `before`. In two
        // steps, the campaigns that would keep the block and then whether any has a row: a
        // Citus cluster refuses the ledger in a subquery correlated with `campaigns` (a
        // reference table there), and the first step is nearly always empty in an old block.
        func expired(_ first: Int64, _ end: Int64) async throws -> Bool {
            let keeping = try await connection.query(
                """
                SELECT id, app_id FROM campaigns
                WHERE id >= \(first) AND id < \(end) AND deliveries_purged_at IS NULL
                  AND (finished_at IS NULL OR finished_at >= \(before))
                """, logger: logger
            ).collect().map { try $0.decode((Int64, Int64).self) }
            // By the ledger's key (app, campaign): the campaign's rows are mostly accepted ones,
            // which the outcome index leaves out (migration 0035).
            for (campaign, app) in keeping {
                let rows = try await connection.query(
                    "SELECT EXISTS (SELECT 1 FROM deliveries WHERE app_id = \(app) AND campaign_id = \(campaign))",
                    logger: logger)
                if try await rows.collect().first?.decode(Bool.self) == true { return false }
            }
            return true
        }
        // Blocks below the newest campaign's: no campaign can be added to them any more.
        let blocks = try await connection.query(
            """
            SELECT name, coalesce(first_id, \(Int64.min)), end_id FROM herald_ledger_blocks()
            WHERE end_id <= (SELECT coalesce(max(id), 0) FROM campaigns)
            """, logger: logger
        ).collect().map { try $0.decode((String, Int64, Int64).self) }
        var dropped = [Range<Int64>]()
        for (name, first, end) in blocks {
            guard name.range(of: #"^deliveries_[0-9]+$"#, options: .regularExpression) != nil, try await expired(first, end)
            else { continue }
            let rows = try await count(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(name)"), on: connection)
            if dryRun {
                result.campaigns += try await count(
                    """
                    SELECT count(*) FROM campaigns
                    WHERE id >= \(first) AND id < \(end) AND finished_at < \(before) AND deliveries_purged_at IS NULL
                    """, on: connection)
            } else {
                try await connection.query("BEGIN", logger: logger)
                do {
                    try await connection.query("SET LOCAL lock_timeout = '2s'", logger: logger)
                    // The drop and the campaigns' mark in one transaction: on a cluster, over one
                    // connection per node.
                    try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                    // The parent first, as every writer and reader takes it; then nothing can
                    // add a row to the partition while it is checked again and dropped.
                    try await connection.query("LOCK TABLE deliveries IN ACCESS EXCLUSIVE MODE", logger: logger)
                    guard try await expired(first, end) else {
                        try await connection.query("ROLLBACK", logger: logger)
                        continue
                    }
                    try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
                    result.campaigns += try await count(
                        """
                        WITH marked AS (
                            UPDATE campaigns SET deliveries_purged_at = now()
                            WHERE id >= \(first) AND id < \(end) AND finished_at < \(before) AND deliveries_purged_at IS NULL
                            RETURNING 1
                        ) SELECT count(*) FROM marked
                        """, on: connection)
                    try await connection.query("COMMIT", logger: logger)
                } catch let error as PSQLError where ["55P03", "40P01"].contains(error.serverInfo?[.sqlState]) {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    logger.info("retention: the ledger was busy; this month of it goes row by row", metadata: ["partition": "\(name)"])
                    continue
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
            result.deliveries += rows
            result.ledgerPartitions += 1
            dropped.append(first..<end)
        }
        return dropped
    }

    /// Deletes `table`'s rows older than `before` (by `column`, which has an index). The delete
    /// repeats the condition beside the row addresses: in a partitioned table an address names
    /// a row in each partition, and the condition keeps the delete to the rows selected.
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
                DELETE FROM \(unescaped: table) WHERE \(unescaped: column) < \(before) AND ctid = ANY (ARRAY(
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
