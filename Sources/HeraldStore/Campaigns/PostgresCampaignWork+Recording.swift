import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresCampaignWork {
    /// The label of the one part the invalidated devices lie in, from their records' buckets;
    /// nil when they lie in several, or a record has no bucket.
    static func partLabel(
        of invalidations: [DeviceInvalidation], in records: [DeliveryRecord], client: PostgresClient, logger: Logger
    ) async throws -> Int32? {
        guard !invalidations.isEmpty else { return nil }
        var buckets = [Int64: Int](minimumCapacity: records.count)
        for record in records { buckets[record.deviceID] = record.bucket }
        let parts = Set(invalidations.map { buckets[$0.deviceID].map { $0 / DeviceBucket.partWidth } })
        guard parts.count == 1, let part = parts.first, let part else { return nil }
        return try await PartLabels.label(ofBucket: Int32(part * DeviceBucket.partWidth), client: client, logger: logger)
    }

    /// One transaction: the chunk's row is locked under the lease token (or nothing is
    /// written), invalidations applied, outcomes inserted (a device's first outcome wins) and
    /// counted as inserted, and the cursor advanced. Never the cursor without the outcomes.
    ///
    /// The ledger rows go in with a plain INSERT first: a batch's devices lie past its chunk's
    /// cursor, so none has its row yet, and `ON CONFLICT`'s check of every row's key before
    /// inserting it was a tenth of PostgreSQL's work in a campaign. When a device has its row
    /// after all (a device read by two zones' chunks after it moved zone, a batch recorded
    /// twice), the unique key refuses the INSERT, the transaction rolls back whole, and the
    /// batch is recorded again with `ON CONFLICT DO NOTHING`: the device's first outcome wins.
    public func recordBatch(
        _ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation], cursor: Int64
    ) async throws -> BatchReceipt {
        let receipt = try await DatabaseMetrics.measure("work.recordBatch") {
            try await PostgresErrors.retryingDeadlocks {
                do {
                    return try await record(lease, records: records, invalidations: invalidations, cursor: cursor, conflicts: .refuse)
                } catch  where Self.isLedgerConflict(error) {
                    DatabaseMetrics.ledgerConflict()
                    return try await record(lease, records: records, invalidations: invalidations, cursor: cursor, conflicts: .skip)
                }
            }
        }
        DatabaseMetrics.recorded(records)
        DatabaseMetrics.invalidated(receipt.invalidated, source: "campaign")
        return receipt
    }

    /// What the ledger INSERT does with a device that has its row already.
    enum LedgerConflicts {
        /// Fail (the unique key's own check, no extra probe).
        case refuse
        /// Keep the row there (`ON CONFLICT DO NOTHING`).
        case skip
    }

    /// A unique violation on the ledger (any of its partitions; on a Citus cluster, any of their
    /// shards, whose error a worker relays with the constraint's name in its message only).
    static func isLedgerConflict(_ error: any Error) -> Bool {
        guard let server = PostgresErrors.serverError(error)?.serverInfo else { return false }
        // A Citus coordinator that wrote the rows to a shard by COPY relays the shard's refusal
        // as an internal error (XX000) with PostgreSQL's own message.
        let relayed =
            server[.sqlState] == "XX000"
            && server[.message]?.hasPrefix("duplicate key value violates unique constraint") == true
        guard server[.sqlState] == PostgresError.Code.uniqueViolation.raw || relayed else { return false }
        if let table = server[.tableName] { return table.hasPrefix("deliveries") }
        return server[.message]?.contains("constraint \"deliveries_") == true
    }

    private func record(
        _ lease: ChunkLease, records: [DeliveryRecord], invalidations: [DeviceInvalidation], cursor: Int64,
        conflicts: LedgerConflicts
    ) async throws -> BatchReceipt {
        let part = try await Self.chunkPart(firstBucket: Int32(lease.buckets.lowerBound), client: client, logger: logger)
        let key = Self.chunkKey("k", appID: lease.appID, campaignID: lease.campaignID, chunk: Int32(lease.chunk), part: part)
        return try await client.withDomainTransaction(logger: logger) { connection -> BatchReceipt in
            try await Self.lockChunk(lease, key: key, on: connection, logger: logger)
            // Rows of several parts: the ledger insert (and the invalidations) reach several
            // shards, and on Citus the counters that follow must then share one connection per
            // node. A chunk inside one part (the usual one) writes its ledger rows to one shard.
            let partWidth = DeviceBucket.partWidth
            if lease.partBucket == nil || Set(records.compactMap { $0.bucket.map { $0 / partWidth } }).count > 1 {
                try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
            }
            let invalidated: Int
            if let type = lease.startTokenType {
                // A start campaign sent to start tokens: those are what a token error drops.
                invalidated = try await DeviceInvalidator.dropStartTokens(
                    invalidations, attributesType: type, appID: lease.appID, on: connection, logger: logger)
                try await LiveActivityStarts.record(
                    campaignID: lease.campaignID, appID: lease.appID,
                    accepted: records.filter { $0.outcome == .accepted }.map(\.deviceID), on: connection, logger: logger)
            } else {
                invalidated = try await DeviceInvalidator.apply(
                    invalidations, appID: lease.appID,
                    part: try await Self.partLabel(of: invalidations, in: records, client: client, logger: logger),
                    on: connection, logger: logger
                ).count
            }
            let recorded = try await Self.insert(
                records, lease: lease, part: part, invalidated: invalidated, cursor: cursor, conflicts: conflicts,
                on: connection, logger: logger)
            return BatchReceipt(recorded: recorded, invalidated: invalidated)
        }
    }

    /// Inserts the outcomes, then adds what was inserted to the chunk's counters and advances its
    /// cursor. Returns how many outcomes were new.
    ///
    /// Two statements, not one with the counters in CTEs over the INSERT's `RETURNING`: on a
    /// Citus cluster such a statement sends the inserted rows to every worker, so one stopped
    /// worker would stop every batch of every part (docs/scaling.md, "When a worker stops").
    /// The INSERT alone writes to its rows' shards only.
    static func insert(
        _ records: [DeliveryRecord], lease: ChunkLease, part: Int32, invalidated: Int, cursor: Int64,
        conflicts: LedgerConflicts, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        let key = chunkKey("k", appID: lease.appID, campaignID: lease.campaignID, chunk: Int32(lease.chunk), part: part)
        // Arrays cannot hold NULL here: 0, "" and the nil UUID stand for "none".
        let ledger = try LedgerRows(records)
        // Without `ON CONFLICT` the INSERT writes every row or fails whole, so it returns
        // nothing: the rows it wrote are the records. With it, the device IDs it wrote.
        let insert = try await connection.query(
            """
            WITH input AS (
                SELECT * FROM unnest(\(ledger.deviceIDs)::bigint[], \(ledger.outcomePlaces)::integer[], \(ledger.apnsIDs)::uuid[],
                                     \(ledger.languagePlaces)::integer[], \(ledger.variants)::smallint[],
                                     \(ledger.retryAts)::timestamptz[], \(ledger.buckets)::integer[])
                    AS t(device_id, outcome, apns_id, language, variant, retry_at, bucket)
            )
            INSERT INTO deliveries (app_id, campaign_id, device_id, part, outcome, status, reason, apns_id, language,
                                    variant, retry_at)
            SELECT \(lease.appID), \(lease.campaignID), device_id, herald_part(bucket), (\(ledger.outcomes)::text[])[outcome],
                   NULLIF((\(ledger.statuses)::integer[])[outcome], 0), NULLIF((\(ledger.reasons)::text[])[outcome], ''),
                   NULLIF(apns_id, \(Self.noUUID)), NULLIF((\(ledger.languages)::text[])[language], ''), NULLIF(variant, -1),
                   NULLIF(retry_at, 'epoch')
            FROM input
            \(unescaped: conflicts == .skip ? "ON CONFLICT DO NOTHING RETURNING device_id" : "")
            """, logger: logger)
        let written: [DeliveryRecord]
        switch conflicts {
        case .refuse:
            for try await _ in insert {}  // read to its end: a refused row's error comes there
            written = records
        case .skip:
            written = Self.newRecords(records, inserted: try await insert.collect().map { try $0.decode(Int64.self) })
        }
        let tally = BatchTally(written.map(Self.tallyRow))
        let variantColumns = BatchTally.columns(tally.byVariant)
        let languageColumns = BatchTally.columns(tally.byLanguage)
        let failureReasons = tally.failuresByReason.sorted { $0.key < $1.key }
        let (accepted, failed) = (tally.count("accepted"), tally.count("failed"))
        // Each CTE reads bound arrays, none reads another: on Citus a CTE read by another is
        // sent to every worker (docs/scaling.md, "When a worker stops").
        let rows = try await connection.query(
            """
            WITH by_variant AS (
                INSERT INTO campaign_chunk_variants AS v (app_id, campaign_id, chunk, part, variant, accepted, failed, skipped,
                                                           deferred, unsent)
                SELECT \(lease.appID), \(lease.campaignID), \(Int32(lease.chunk)), \(part), t.*
                FROM unnest(\(variantColumns.keys)::smallint[], \(variantColumns.counts[0])::bigint[], \(variantColumns.counts[1])::bigint[],
                            \(variantColumns.counts[2])::bigint[], \(variantColumns.counts[3])::bigint[], \(variantColumns.counts[4])::bigint[]) AS t
                ON CONFLICT (app_id, campaign_id, chunk, part, variant) DO UPDATE
                SET accepted = v.accepted + excluded.accepted, failed = v.failed + excluded.failed,
                    skipped = v.skipped + excluded.skipped, deferred = v.deferred + excluded.deferred,
                    unsent = v.unsent + excluded.unsent
            ), by_language AS (
                INSERT INTO campaign_chunk_languages AS l (app_id, campaign_id, chunk, part, language, accepted, failed, skipped,
                                                            deferred, unsent)
                SELECT \(lease.appID), \(lease.campaignID), \(Int32(lease.chunk)), \(part), t.*
                FROM unnest(\(languageColumns.keys)::text[], \(languageColumns.counts[0])::bigint[], \(languageColumns.counts[1])::bigint[],
                            \(languageColumns.counts[2])::bigint[], \(languageColumns.counts[3])::bigint[], \(languageColumns.counts[4])::bigint[]) AS t
                ON CONFLICT (app_id, campaign_id, chunk, part, language) DO UPDATE
                SET accepted = l.accepted + excluded.accepted, failed = l.failed + excluded.failed,
                    skipped = l.skipped + excluded.skipped, deferred = l.deferred + excluded.deferred,
                    unsent = l.unsent + excluded.unsent
            ), by_minute AS (
                INSERT INTO campaign_chunk_minutes AS m (app_id, campaign_id, chunk, part, minute, accepted, failed)
                SELECT \(lease.appID), \(lease.campaignID), \(Int32(lease.chunk)), \(part), date_trunc('minute', now()),
                       \(accepted), \(failed)
                WHERE \(accepted + failed) > 0
                ON CONFLICT (app_id, campaign_id, chunk, part, minute) DO UPDATE
                SET accepted = m.accepted + excluded.accepted, failed = m.failed + excluded.failed
            )
            UPDATE campaign_chunks k
            SET accepted = k.accepted + \(accepted), failed = k.failed + \(failed),
                skipped = k.skipped + \(tally.count("skipped")), deferred = k.deferred + \(tally.count("deferred")),
                unsent = k.unsent + \(tally.count("unsent")), held_out = k.held_out + \(tally.heldOut),
                invalidated = k.invalidated + \(Int64(invalidated)),
                failed_by_reason = (
                    SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
                        SELECT key, sum(n) AS total FROM (
                            SELECT key, value::bigint AS n FROM jsonb_each_text(k.failed_by_reason)
                            UNION ALL
                            SELECT * FROM unnest(\(failureReasons.map(\.key))::text[], \(failureReasons.map(\.value))::bigint[])
                        ) parts GROUP BY key
                    ) totals),
                cursor = greatest(k.cursor, \(cursor)), in_flight_to = NULL
            WHERE \(unescaped: key)
            RETURNING \(tally.total)::bigint
            """, logger: logger)
        return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
    }

    /// The records whose rows the INSERT wrote, from the device IDs it returned: all of them
    /// unless a device already had its outcome (a device's first outcome wins, and within one
    /// batch its first record, as the INSERT reads them in order).
    static func newRecords(_ records: [DeliveryRecord], inserted: [Int64]) -> [DeliveryRecord] {
        guard inserted.count != records.count else { return records }
        var remaining = Set(inserted)
        return records.filter { remaining.remove($0.deviceID) != nil }
    }

    /// A record as the counters read it (the tally files no reason and no language under "").
    static func tallyRow(_ record: DeliveryRecord) -> (outcome: String, reason: String?, variant: Int16?, language: String?) {
        (record.outcome.kind.rawValue, record.outcome.reason, record.variant.map { Int16(clamping: $0) }, record.language?.value)
    }

    /// Locks the chunk's row (`key`, ``chunkKey(_:_:client:logger:)`` with alias `k`) under the
    /// lease token, inside the caller's transaction; throws ``CampaignWorkError/leaseLost`` when
    /// another worker holds the chunk now.
    static func lockChunk(_ lease: ChunkLease, key: String, on connection: PostgresConnection, logger: Logger) async throws {
        let locked = try await connection.query(
            """
            SELECT k.chunk FROM campaign_chunks k
            WHERE \(unescaped: key) AND k.lease_token = \(lease.token) AND k.state = 'pending'
            FOR UPDATE
            """, logger: logger)
        guard try await !locked.collect().isEmpty else { throw CampaignWorkError.leaseLost }
    }

    /// Each record's device bucket, which names its ledger row's part.
    static func buckets(of records: [DeliveryRecord]) throws -> [Int32] {
        try records.map(bucket(of:))
    }

    /// A record's device bucket. A campaign's records all carry one in 0…255; a record without
    /// is refused before anything is written, rather than filed under a wrong part.
    static func bucket(of record: DeliveryRecord) throws -> Int32 {
        guard let bucket = record.bucket, (0...255).contains(bucket) else {
            throw StoreError.missingBucket(deviceID: record.deviceID)
        }
        return Int32(bucket)
    }

    /// Stands for "no apns-id" in the bound array.
    static let noUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}
