import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresCampaignWork {
    public func retryableDevices(
        _ lease: ChunkLease, now: Date, limit: Int
    ) async throws
        -> [(device: CampaignDevice, attempts: Int)]
    {
        try await DatabaseMetrics.measure("work.retryableDevices") {
            let part = try await lease.partCondition("l", client: client, logger: logger)
            // A start campaign's devices are sent to their start token of its type (while they hold one).
            let token = lease.startTokenType == nil ? "token" : "start_token"
            let attributes = CampaignDeviceRow.Attributes(lease.attributeNames)
            let rows = try await client.query(
                """
                SELECT id, \(unescaped: token), \(unescaped: CampaignDeviceRow.columnsAfterToken(attributes)), attempts FROM (
                    SELECT d.*, l.attempts, s.token AS start_token
                    FROM deliveries l
                    JOIN devices d ON d.app_id = l.app_id AND d.id = l.device_id AND d.part = l.part
                    -- One start token at most (its key), in the device's shard: a join, not a
                    -- subquery per row, which a Citus cluster cannot run across shards.
                    LEFT JOIN live_activity_start_tokens s
                        ON s.app_id = d.app_id AND s.device_id = d.id AND s.part = d.part
                       AND s.attributes_type = \(lease.startTokenType ?? "")
                    WHERE l.app_id = \(lease.appID) AND l.campaign_id = \(lease.campaignID) AND l.outcome = 'deferred'
                      AND \(unescaped: part)
                      AND l.retry_at <= \(now) AND d.invalidated_at IS NULL
                      AND (\(lease.startTokenType)::text IS NULL OR s.token IS NOT NULL)
                      AND d.bucket BETWEEN \(Int32(lease.buckets.lowerBound)) AND \(Int32(lease.buckets.upperBound))
                      AND (\(lease.deviceZone)::text IS NULL OR coalesce(d.time_zone, '') = \(lease.deviceZone))
                    ORDER BY l.device_id
                    LIMIT \(Int64(max(limit, 1)))
                ) due
                ORDER BY id
                """, logger: logger)
            var languages = DeviceRow.LanguageCache()
            return try await rows.collect().map { row in
                (
                    try CampaignDeviceRow.decode(row, attributes: attributes, languages: &languages),
                    Int(try row.makeRandomAccess()[CampaignDeviceRow.count(attributes)].decode(Int16.self))
                )
            }
        }
    }

    public func nextRetry(_ lease: ChunkLease) async throws -> Date? {
        try await DatabaseMetrics.measure("work.nextRetry") {
            let part = try await lease.partCondition("l", client: client, logger: logger)
            // A device pruned or invalidated since its 429 will not be tried again: its row is final.
            // The start-token test is written only for a start campaign: on a Citus cluster a
            // bound `($n IS NOT NULL AND …)` makes the UPDATE reach every worker.
            var update = SQLBuilder("UPDATE deliveries l SET retry_at = NULL WHERE l.app_id = ")
            update.bind(lease.appID)
            update.append(" AND l.campaign_id = ")
            update.bind(lease.campaignID)
            update.append(
                """
                 AND l.retry_at IS NOT NULL AND \(part)
                  AND (NOT EXISTS (SELECT 1 FROM devices d
                                   WHERE d.app_id = l.app_id AND d.id = l.device_id AND d.part = l.part
                                     AND d.invalidated_at IS NULL)
                """)
            if let type = lease.startTokenType {
                // A start campaign's device whose start token was dropped since.
                update.append(
                    """
                     OR NOT EXISTS (SELECT 1 FROM live_activity_start_tokens s
                                    WHERE s.app_id = l.app_id AND s.device_id = l.device_id AND s.part = l.part
                                      AND s.attributes_type = 
                    """)
                update.bind(type)
                update.append(")")
            }
            update.append(")")
            try await client.query(update.query, logger: logger)
            let rows = try await client.query(
                """
                SELECT min(l.retry_at) FROM deliveries l
                JOIN devices d ON d.app_id = l.app_id AND d.id = l.device_id AND d.part = l.part
                WHERE l.app_id = \(lease.appID) AND l.campaign_id = \(lease.campaignID) AND l.retry_at IS NOT NULL
                  AND \(unescaped: part)
                  AND d.bucket BETWEEN \(Int32(lease.buckets.lowerBound)) AND \(Int32(lease.buckets.upperBound))
                  AND (\(lease.deviceZone)::text IS NULL OR coalesce(d.time_zone, '') = \(lease.deviceZone))
                """, logger: logger)
            return try await rows.collect().first?.decode(Date?.self)
        }
    }

    /// From the chunk's counter, which moves with the ledger in the same transactions. Read from
    /// the ledger, "none due" cost a tenth of a second a statement on a million-device campaign
    /// whose rows the planner had not yet counted: it walked the part's rows by the key instead
    /// of the small retry index.
    public func hasDeferred(_ lease: ChunkLease) async throws -> Bool {
        try await DatabaseMetrics.measure("work.hasDeferred") {
            let key = try await Self.chunkKey("", lease, client: client, logger: logger)
            let rows = try await client.query(
                "SELECT deferred > 0 FROM campaign_chunks WHERE \(unescaped: key)", logger: logger)
            return try await rows.collect().first?.decode(Bool.self) ?? false
        }
    }

    public func recordRetries(
        _ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation]
    )
        async throws
    {
        try await DatabaseMetrics.measure("work.recordRetries") {
            let part = try await Self.chunkPart(firstBucket: Int32(lease.buckets.lowerBound), client: client, logger: logger)
            let key = Self.chunkKey("k", appID: lease.appID, campaignID: lease.campaignID, chunk: Int32(lease.chunk), part: part)
            try await PostgresErrors.retryingDeadlocks {
                try await client.withDomainTransaction(logger: logger) { connection in
                    // The ledger's rows move on every shard the chunk spans, then the chunk's counters
                    // on the coordinator: on a cluster that takes one connection per node.
                    try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                    try await Self.lockChunk(lease, key: key, on: connection, logger: logger)
                    let invalidated = try await DeviceInvalidator.apply(
                        invalidations, appID: lease.appID,
                        part: try await Self.partLabel(of: invalidations, in: records, client: client, logger: logger),
                        on: connection, logger: logger
                    ).count
                    try await Self.update(
                        records, lease: lease, part: part, invalidated: invalidated, on: connection, logger: logger)
                }
            }
        }
        DatabaseMetrics.recorded(records)
    }

    /// Moves `deferred` rows still waiting for a retry to their new outcomes and the chunk's
    /// counters (totals and by variant) with them, in one statement: a row already moved (the
    /// batch recorded twice) is not moved again.
    static func update(
        _ records: [DeliveryRecord], lease: ChunkLease, part: Int32, invalidated: Int, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let chunk = Int32(lease.chunk)
        let key = chunkKey("k", appID: lease.appID, campaignID: lease.campaignID, chunk: chunk, part: part)
        let variantKey = chunkKey("v", appID: lease.appID, campaignID: lease.campaignID, chunk: chunk, part: part)
        let ids = records.map(\.deviceID)
        let outcomes = records.map(\.outcome.kind.rawValue)
        let statuses = records.map { Int32(clamping: $0.outcome.status ?? 0) }
        let reasons = records.map { $0.outcome.reason ?? "" }
        let retryAts = records.map { $0.retryAt ?? Date(timeIntervalSince1970: 0) }
        let buckets = try buckets(of: records)
        try await connection.query(
            """
            WITH input AS (
                -- `at`: the time an accepted row takes, read here rather than inside the CASE below,
                -- where a Citus cluster refuses a non-immutable function on a distributed table.
                SELECT *, now() AS at FROM unnest(\(ids)::bigint[], \(outcomes)::text[], \(statuses)::integer[],
                                                  \(reasons)::text[], \(retryAts)::timestamptz[], \(buckets)::integer[])
                    AS t(device_id, outcome, status, reason, retry_at, bucket)
            ), moved AS (
                UPDATE deliveries l
                SET outcome = i.outcome, status = NULLIF(i.status, 0), reason = NULLIF(i.reason, ''),
                    attempts = l.attempts + 1, retry_at = NULLIF(i.retry_at, 'epoch'),
                    created_at = CASE WHEN i.outcome = 'accepted' THEN i.at ELSE l.created_at END
                FROM input i
                WHERE l.app_id = \(lease.appID) AND l.campaign_id = \(lease.campaignID) AND l.device_id = i.device_id
                  AND l.part = herald_part(i.bucket) AND l.outcome = 'deferred' AND l.retry_at IS NOT NULL
                RETURNING l.outcome, l.reason, l.variant
            ), delta AS (
                SELECT count(*) FILTER (WHERE outcome = 'accepted') AS accepted,
                       count(*) FILTER (WHERE outcome = 'failed') AS failed,
                       count(*) FILTER (WHERE outcome = 'skipped') AS skipped,
                       count(*) FILTER (WHERE outcome <> 'deferred') AS left_deferred
                FROM moved
            ), by_variant AS (
                UPDATE campaign_chunk_variants v
                SET accepted = v.accepted + m.accepted, failed = v.failed + m.failed, skipped = v.skipped + m.skipped,
                    deferred = v.deferred - m.left_deferred
                FROM (SELECT variant, count(*) FILTER (WHERE outcome = 'accepted') AS accepted,
                             count(*) FILTER (WHERE outcome = 'failed') AS failed,
                             count(*) FILTER (WHERE outcome = 'skipped') AS skipped,
                             count(*) FILTER (WHERE outcome <> 'deferred') AS left_deferred
                      FROM moved WHERE variant IS NOT NULL GROUP BY variant) m
                WHERE \(unescaped: variantKey) AND v.variant = m.variant
            ), failures AS (
                SELECT coalesce(reason, '') AS reason, count(*) AS n FROM moved WHERE outcome = 'failed' GROUP BY 1
            )
            UPDATE campaign_chunks k
            SET accepted = k.accepted + d.accepted, failed = k.failed + d.failed, skipped = k.skipped + d.skipped,
                deferred = k.deferred - d.left_deferred, invalidated = k.invalidated + \(Int64(invalidated)),
                failed_by_reason = (
                    SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
                        SELECT key, sum(n) AS total FROM (
                            SELECT key, value::bigint AS n FROM jsonb_each_text(k.failed_by_reason)
                            UNION ALL
                            SELECT reason, n FROM failures
                        ) parts GROUP BY key
                    ) totals)
            FROM delta d
            WHERE \(unescaped: key)
            """, logger: logger)
    }
}

extension ChunkLease {
    /// The first bucket of the one part the chunk lies in (every chunk of a campaign sent at
    /// once, and of a large zone), which names that part's label in SQL as
    /// `herald_part(partBucket)`; nil for a chunk across parts. Reads that name it stay in one
    /// part's index range, and on Citus in one shard (docs/scaling.md, "Parts").
    var partBucket: Int32? {
        DeviceBucket.part(of: buckets).map { Int32($0 * DeviceBucket.partWidth) }
    }

    /// `alias.part = <label>` with the chunk's part label written out as a number, or `true` for
    /// a chunk across parts. Written into the statement, not bound or computed there: a Citus
    /// cluster routes an UPDATE to one shard only by a plain equality with a constant, and sends
    /// `(bound IS NULL OR part = herald_part(…))` to every shard, where a stopped worker stops
    /// it (docs/scaling.md, "When a worker stops").
    func partCondition(_ alias: String, client: PostgresClient, logger: Logger) async throws -> String {
        PartLabels.condition(alias, label: try await partLabel(client: client, logger: logger))
    }

    /// The label of the one part the chunk lies in; nil for a chunk across parts.
    func partLabel(client: PostgresClient, logger: Logger) async throws -> Int32? {
        guard let partBucket else { return nil }
        return try await PartLabels.label(ofBucket: partBucket, client: client, logger: logger)
    }
}
