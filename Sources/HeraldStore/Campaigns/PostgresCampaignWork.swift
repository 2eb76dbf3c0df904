import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The engine's campaign work in PostgreSQL (docs/rules.md rule 2): due campaigns and chunks are
/// claimed with `FOR UPDATE SKIP LOCKED`, so any number of instances share them without
/// taking one twice; every write names the chunk and the lease token it holds, and changes
/// nothing once the token has moved on (another worker claimed the chunk).
public struct PostgresCampaignWork: CampaignWorkQueue {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func startDueCampaigns(limit: Int, actor: String, now: Date) async throws -> [Campaign] {
        try await DatabaseMetrics.measure("work.startDue") {
            var started = [Campaign]()
            // One transaction per campaign: freezing a large audience takes a while, and one
            // campaign's failure must not hold back the others.
            while started.count < limit {
                let campaign = try await client.withDomainTransaction(logger: logger) { connection -> Campaign? in
                    let due = try await connection.query(
                        """
                        SELECT id FROM campaigns
                        WHERE state = 'scheduled' AND (send_at IS NULL OR send_at <= \(now))
                        ORDER BY send_at NULLS FIRST, id
                        LIMIT 1
                        FOR NO KEY UPDATE SKIP LOCKED
                        """, logger: logger)
                    guard let row = try await due.collect().first else { return nil }
                    return try await CampaignLifecycle.transition(
                        id: try row.decode(Int64.self), event: .start, actor: actor, on: connection, logger: logger)
                }
                guard let campaign else { break }
                started.append(campaign)
            }
            // Their audiences are counted once they run (the engines were woken at each commit),
            // and so are those an instance that stopped left uncounted.
            let orphans = try await CampaignLifecycle.uncounted(olderThan: .seconds(60), client: client, logger: logger)
            for id in started.map(\.id) + orphans {
                try await CampaignLifecycle.countAudience(campaignID: id, actor: actor, client: client, logger: logger)
            }
            return try await client.withConnection { connection in
                var counted = [Campaign]()
                for campaign in started {
                    counted.append(try await CampaignLifecycle.fetch(id: campaign.id, on: connection, logger: logger) ?? campaign)
                }
                return counted
            }
        }
    }

    /// How many claimable chunks one claim reads before taking the first it can.
    static let claimCandidates = 16

    /// A claim reads the claimable chunks without locks, lowest first, then takes the first
    /// whose lease it can still move with one conditional UPDATE by the chunk's whole key, part
    /// included (docs/scaling.md, "Which table goes where"). On a Citus cluster the chunks are
    /// distributed by part: the read spans shards, and no lock can; the UPDATE goes to one shard.
    /// A read that a stopped worker fails is made again part by part, without that worker's.
    /// Two instances reading the same candidate do not both take it: the second UPDATE waits for
    /// the first to commit, finds the lease moved and changes nothing, and the claim goes on to
    /// the next candidate.
    public func claimChunk(
        owner: String, leaseDuration: Duration, now: Date, excludingApps: [Int64]
    ) async throws
        -> ChunkLease?
    {
        try await DatabaseMetrics.measure("work.claimChunk") {
            // With a worker stopped, the chunks of the other workers' parts are still claimed.
            let (found, _) = try await PartLabels.readPassingUnreachable(run: { try await client.query($0, logger: logger) }) {
                part in
                try await client.query(
                    """
                    SELECT k.app_id, k.campaign_id, k.chunk, k.bucket_from
                    FROM campaign_chunks k JOIN campaigns c ON c.id = k.campaign_id
                    WHERE k.state = 'pending' AND c.state = 'running'
                      AND (k.lease_expires_at IS NULL OR k.lease_expires_at < now())
                      AND (k.not_before IS NULL OR k.not_before <= \(now))
                      AND k.app_id <> ALL (\(excludingApps)::bigint[])
                      AND \(unescaped: PartLabels.condition("k", label: part))
                    ORDER BY k.campaign_id, k.chunk
                    LIMIT \(Self.claimCandidates)
                    """, logger: logger
                ).collect().map { try $0.decode((Int64, Int64, Int32, Int32).self) }
            }
            let candidates = found.sorted { ($0.1, $0.2) < ($1.1, $1.2) }.prefix(Self.claimCandidates)
            for (appID, campaignID, chunk, firstBucket) in candidates {
                let part = try await Self.chunkPart(firstBucket: firstBucket, client: client, logger: logger)
                let key = Self.chunkKey("k", appID: appID, campaignID: campaignID, chunk: chunk, part: part)
                do {
                    if let lease = try await take(key: key, owner: owner, leaseDuration: leaseDuration, now: now) {
                        return lease
                    }
                } catch  where PostgresErrors.isWorkerUnreachable(error) {
                    // Its worker stopped since the read: the next candidate may lie elsewhere.
                    continue
                }
            }
            return nil
        }
    }

    /// Moves the lease of the chunk `key` names to `owner` if it is still claimable.
    private func take(key: String, owner: String, leaseDuration: Duration, now: Date) async throws -> ChunkLease? {
        let rows = try await client.query(
            """
            UPDATE campaign_chunks k
            SET lease_owner = \(owner), lease_token = k.lease_token + 1,
                lease_expires_at = now() + make_interval(secs => \(Self.seconds(leaseDuration)))
            FROM campaigns c
            WHERE \(unescaped: key) AND c.id = k.campaign_id AND c.state = 'running' AND k.state = 'pending'
              AND (k.lease_expires_at IS NULL OR k.lease_expires_at < now())
              AND (k.not_before IS NULL OR k.not_before <= \(now))
            RETURNING k.campaign_id, k.app_id, k.chunk, k.bucket_from, k.bucket_to, k.cursor, k.in_flight_to,
                      coalesce(c.audience_bound, 0), k.lease_owner, k.lease_token, k.lease_expires_at,
                      k.device_zone, k.time_zone, k.skip_reason, k.send_offset, c.best_time_default_offset,
                      coalesce((c.local_delivery->'bestTime'->>'holdoutBasisPoints')::integer, 0)
            """, logger: logger)
        guard let row = try await rows.collect().first else { return nil }
        let (
            campaignID, appID, chunk, from, to, cursor, inFlightTo, bound, leaseOwner, token, expiresAt, deviceZone,
            timeZone, skipReason
        ) =
            try row.decode(
                (Int64, Int64, Int32, Int32, Int32, Int64, Int64?, Int64, String, Int64, Date, String?, String?, String?)
                    .self)
        var lease = ChunkLease(
            campaignID: campaignID, appID: appID, chunk: Int(chunk), buckets: Int(from)...Int(to), cursor: cursor,
            inFlightTo: inFlightTo, audienceBound: bound, owner: leaseOwner, token: token, expiresAt: expiresAt,
            deviceZone: deviceZone, timeZone: timeZone, skipReason: skipReason)
        let cells = row.makeRandomAccess()
        if let offset = try cells[14].decode(Int16?.self) {
            lease.sendSlot = BestTimeSlot(
                offset: Int(offset), defaultOffset: Int(try cells[15].decode(Int16?.self) ?? 0),
                holdoutBasisPoints: Int(try cells[16].decode(Int32.self)))
        }
        return lease
    }

    /// `alias.app_id = … AND alias.campaign_id = … AND alias.chunk = … AND alias.part = …`, the
    /// chunk's whole key with every value written out (integers only): on a Citus cluster a
    /// statement is routed to one shard only by a plain equality of the part with a constant
    /// (``PartLabels``).
    static func chunkKey(_ alias: String, appID: Int64, campaignID: Int64, chunk: Int32, part: Int32) -> String {
        let prefix = alias.isEmpty ? "" : alias + "."
        return "\(prefix)app_id = \(appID) AND \(prefix)campaign_id = \(campaignID) AND \(prefix)chunk = \(chunk) "
            + "AND \(prefix)part = \(part)"
    }

    /// The part label a chunk's row and counters carry: its first bucket's (migration 0040).
    static func chunkPart(firstBucket: Int32, client: PostgresClient, logger: Logger) async throws -> Int32 {
        try await PartLabels.label(ofBucket: firstBucket, client: client, logger: logger)
    }

    /// The lease's chunk key (``chunkKey(_:appID:campaignID:chunk:part:)``).
    static func chunkKey(_ alias: String, _ lease: ChunkLease, client: PostgresClient, logger: Logger) async throws -> String {
        chunkKey(
            alias, appID: lease.appID, campaignID: lease.campaignID, chunk: Int32(lease.chunk),
            part: try await chunkPart(firstBucket: Int32(lease.buckets.lowerBound), client: client, logger: logger))
    }

    public func heartbeat(_ lease: ChunkLease, leaseDuration: Duration) async throws {
        try await DatabaseMetrics.measure("work.heartbeat") {
            let key = try await Self.chunkKey("", lease, client: client, logger: logger)
            let rows = try await client.query(
                """
                UPDATE campaign_chunks SET lease_expires_at = now() + make_interval(secs => \(Self.seconds(leaseDuration)))
                WHERE \(unescaped: key) AND lease_token = \(lease.token) AND state = 'pending'
                RETURNING chunk
                """, logger: logger)
            guard try await !rows.collect().isEmpty else { throw CampaignWorkError.leaseLost }
        }
    }

    public func nextDevices(
        _ lease: ChunkLease, filter: AudienceFilter, after cursor: Int64, limit: Int
    ) async throws
        -> [CampaignDevice]
    {
        try await DatabaseMetrics.measure("work.nextDevices") {
            let events = try await EventLookup.choose(appID: lease.appID, segments: filter.segmentParts, client: client, logger: logger)
            // One selection for the query's columns and the rows' decode.
            let attributes = CampaignDeviceRow.Attributes(lease.attributeNames)
            let sql = try Self.chunkRead(
                lease, filter: filter, attributes: attributes, events: events, after: cursor, limit: limit, prefix: "SELECT ")
            let rows = try await client.query(sql.query, logger: logger)
            var languages = DeviceRow.LanguageCache()
            return try await rows.collect().map { try CampaignDeviceRow.decode($0, attributes: attributes, languages: &languages) }
        }
    }

    /// PostgreSQL's plan for one page of a chunk's devices, run (`EXPLAIN (ANALYZE, BUFFERS)`):
    /// what `herald bench segments` shows to argue the read stays one index range scan.
    public func explainNextDevices(
        _ lease: ChunkLease, filter: AudienceFilter, after cursor: Int64, limit: Int
    ) async throws
        -> [String]
    {
        let events = try await EventLookup.choose(appID: lease.appID, segments: filter.segmentParts, client: client, logger: logger)
        let sql = try Self.chunkRead(
            lease, filter: filter, attributes: CampaignDeviceRow.Attributes(lease.attributeNames), events: events, after: cursor,
            limit: limit, prefix: "EXPLAIN (ANALYZE, BUFFERS) SELECT ")
        return try await client.query(sql.query, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// One page of a chunk's devices in ID order: a range scan of `(app_id, id, bucket)` from
    /// the cursor that stops at the page's last device. A segment is tested on each row the
    /// scan returns, through `herald_keep` (migration 0026): as a plain filter, the planner would
    /// estimate it selective and read the chunk's whole range (or a language's whole bitmap) and
    /// sort it, for every page.
    static func chunkRead(
        _ lease: ChunkLease, filter: AudienceFilter, attributes: CampaignDeviceRow.Attributes, events: EventLookup, after cursor: Int64,
        limit: Int, prefix: String
    ) throws -> SQLBuilder {
        var sql = SQLBuilder(prefix)
        AudienceQuery.deviceColumns(filter, attributes: attributes, into: &sql)
        sql.append(" FROM devices WHERE ")
        try AudienceQuery.appendConditions(to: &sql, appID: lease.appID, filter: filter, events: nil)
        if AudienceQuery.hasSegments(filter) {
            sql.append(" AND herald_keep((")
            try AudienceQuery.appendSegmentTest(filter, events: events, to: &sql)
            sql.append(") IS TRUE)")
        }
        // Keyset in ID order up to the frozen bound; (app_id, part, id, bucket) is indexed, so the
        // scan follows the order and checks the bucket inside the index (migrations 0005, 0029).
        if let zone = lease.deviceZone {
            // A zone's chunk: its own index leads with the zone (migration 0007).
            sql.append(" AND coalesce(time_zone, '') = ")
            sql.bind(zone)
        }
        if let slot = lease.sendSlot {
            // A best-time chunk: the devices of its hour.
            sql.append(" AND ")
            BestTimeQuery.appendOffset(campaignID: lease.campaignID, slot: slot, to: &sql)
            sql.append(" = ")
            sql.bind(Int32(slot.offset))
        }
        if let partBucket = lease.partBucket {
            // A chunk inside one part: its devices are one range of (app_id, part, id, bucket),
            // and on Citus one shard (migration 0029).
            sql.append(" AND part = herald_part(")
            sql.bind(partBucket)
            sql.append(")")
        }
        sql.append(" AND bucket BETWEEN ")
        sql.bind(Int32(lease.buckets.lowerBound))
        sql.append(" AND ")
        sql.bind(Int32(lease.buckets.upperBound))
        sql.append(" AND id > ")
        sql.bind(cursor)
        sql.append(" AND id <= ")
        sql.bind(lease.audienceBound)
        sql.append(" ORDER BY id LIMIT ")
        sql.bind(Int64(max(limit, 1)))
        return sql
    }

    @discardableResult
    public func markInFlight(_ lease: ChunkLease, upTo deviceID: Int64) async throws -> Bool {
        try await DatabaseMetrics.measure("work.markInFlight") {
            // One statement answers both questions: is the lease still ours (a row at all) and
            // is the campaign still running (only then is the mark written).
            let key = try await Self.chunkKey("k", lease, client: client, logger: logger)
            let rows = try await client.query(
                """
                UPDATE campaign_chunks k
                SET in_flight_to = CASE WHEN c.state = 'running' THEN \(deviceID) ELSE k.in_flight_to END
                FROM campaigns c
                WHERE \(unescaped: key)
                  AND k.lease_token = \(lease.token) AND k.state = 'pending' AND c.id = k.campaign_id
                RETURNING c.state
                """, logger: logger)
            guard let row = try await rows.collect().first else { throw CampaignWorkError.leaseLost }
            return try row.decode(String.self) == CampaignState.running.rawValue
        }
    }

    public func completeChunk(_ lease: ChunkLease, actor: String) async throws -> Campaign? {
        try await DatabaseMetrics.measure("work.completeChunk") {
            let key = try await Self.chunkKey("", lease, client: client, logger: logger)
            return try await client.withDomainTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    UPDATE campaign_chunks
                    SET state = 'done', finished_at = now(), in_flight_to = NULL, lease_expires_at = NULL
                    WHERE \(unescaped: key)
                      AND lease_token = \(lease.token) AND state = 'pending'
                    RETURNING chunk
                    """, logger: logger)
                guard try await !rows.collect().isEmpty else { throw CampaignWorkError.leaseLost }
                return try await CampaignLifecycle.completeIfDone(
                    id: lease.campaignID, actor: actor, on: connection, logger: logger)
            }
        }
    }

    public func holdChunk(_ lease: ChunkLease, until: Date) async throws {
        try await DatabaseMetrics.measure("work.holdChunk") {
            let key = try await Self.chunkKey("", lease, client: client, logger: logger)
            let rows = try await client.query(
                """
                UPDATE campaign_chunks SET lease_owner = NULL, lease_expires_at = NULL, not_before = \(until)
                WHERE \(unescaped: key)
                  AND lease_token = \(lease.token) AND state = 'pending'
                RETURNING chunk
                """, logger: logger)
            guard try await !rows.collect().isEmpty else { throw CampaignWorkError.leaseLost }
        }
    }

    public func releaseChunk(_ lease: ChunkLease, hold: Duration) async throws {
        try await DatabaseMetrics.measure("work.releaseChunk") {
            // A held chunk has no owner and a lease that runs out after the hold (at once for no
            // hold): claims pass it by until then, and no other column (not the zone's local
            // moment) changes. No CASE around now(): Citus refuses one in an UPDATE's SET.
            let key = try await Self.chunkKey("", lease, client: client, logger: logger)
            _ = try await client.query(
                """
                UPDATE campaign_chunks
                SET lease_owner = NULL, lease_expires_at = now() + make_interval(secs => \(Self.seconds(hold)))
                WHERE \(unescaped: key)
                  AND lease_token = \(lease.token) AND state = 'pending'
                """, logger: logger)
        }
    }

    public func failCampaign(_ lease: ChunkLease, reason: String, actor: String) async throws -> Bool {
        let failed = try await DatabaseMetrics.measure("work.failCampaign") {
            do {
                return try await client.withDomainTransaction(logger: logger) { connection in
                    try await CampaignLifecycle.transition(
                        id: lease.campaignID, event: .fail(reason: reason), actor: actor, on: connection, logger: logger) != nil
                }
            } catch is CampaignError {
                // Another worker failed it first, or it was cancelled or completed meanwhile.
                return false
            }
        }
        try await releaseChunk(lease)
        return failed
    }

    /// A lease duration in seconds, for `make_interval`.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
