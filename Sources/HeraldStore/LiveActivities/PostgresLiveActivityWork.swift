import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The Live Activity fan-out's claims, batches and outcomes in PostgreSQL. An update is claimed
/// under a lease like a campaign chunk; each batch's outcomes, token drops and cursor are
/// written in one transaction that checks the lease, so a crash costs at most one resent batch
/// (with the same apns-ids).
public struct PostgresLiveActivityWork: LiveActivityWork {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func claimUpdate(
        owner: String, leaseDuration: Duration, now: Date, excludingApps: Set<Int64>
    ) async throws
        -> LiveActivityLease?
    {
        let expires = now.addingTimeInterval(leaseDuration.seconds)
        return try await DatabaseMetrics.measure("liveActivities.claim") {
            let rows = try await client.query(
                """
                UPDATE live_activity_updates u
                SET state = 'sending', lease_owner = \(owner), lease_token = u.lease_token + 1, lease_expires_at = \(expires)
                WHERE u.id = (
                    SELECT q.id FROM live_activity_updates q
                    WHERE q.state IN ('queued', 'sending') AND (q.state = 'queued' OR q.lease_expires_at < \(now))
                      AND NOT (q.app_id = ANY(\(Array(excludingApps))::bigint[]))
                      AND NOT EXISTS (
                          SELECT 1 FROM live_activity_updates e
                          WHERE e.app_id = q.app_id AND e.activity_id = q.activity_id AND e.id < q.id
                            AND e.state IN ('queued', 'sending'))
                    ORDER BY q.id LIMIT 1
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: LiveActivityRow.updateColumns), u.cursor, u.lease_token
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let update = try LiveActivityRow.decodeUpdate(row)
            let cells = row.makeRandomAccess()
            return LiveActivityLease(
                update: update, cursor: try cells[16].decode(Int64.self), owner: owner, token: try cells[17].decode(Int64.self),
                expiresAt: expires)
        }
    }

    public func recipients(
        _ lease: LiveActivityLease, after cursor: Int64, limit: Int, devices: Bool, now: Date
    ) async throws
        -> [LiveActivityRecipient]
    {
        let since = now.addingTimeInterval(-LiveActivityRules.tokenLifetime)
        let (appID, activityID) = (lease.update.appID, lease.update.activityID)
        guard devices else {
            // What a shared payload needs: the token, and the environment it is sent in.
            return try await DatabaseMetrics.measure("liveActivities.recipients") {
                let rows = try await client.query(
                    """
                    SELECT t.id, t.token, t.device_id, d.environment FROM live_activity_tokens t
                    JOIN devices d ON d.app_id = t.app_id AND d.id = t.device_id AND d.part = t.part
                    WHERE t.app_id = \(appID) AND t.activity_id = \(activityID) AND t.id > \(cursor) AND t.registered_at > \(since)
                    ORDER BY t.id LIMIT \(limit)
                    """, logger: logger)
                var found = [LiveActivityRecipient]()
                found.reserveCapacity(limit)
                for try await (id, token, deviceID, environment) in rows.decode((Int64, ByteBuffer, Int64, String).self) {
                    found.append(
                        LiveActivityRecipient(
                            tokenID: id, token: try DeviceToken(bytes: Array(buffer: token)), deviceID: deviceID,
                            environment: try StoreError.decode(environment, as: APNSEnvironment.self, column: "devices.environment")))
                }
                return found
            }
        }
        return try await DatabaseMetrics.measure("liveActivities.recipients") {
            // The device's columns first (DeviceRow reads them by position), then the token's.
            let rows = try await client.query(
                """
                SELECT x.*, t.id, t.token FROM live_activity_tokens t
                CROSS JOIN LATERAL (SELECT \(unescaped: DeviceRow.columns) FROM devices
                                    WHERE devices.app_id = t.app_id AND devices.id = t.device_id
                                      AND devices.part = t.part) x
                WHERE t.app_id = \(appID) AND t.activity_id = \(activityID) AND t.id > \(cursor) AND t.registered_at > \(since)
                ORDER BY t.id LIMIT \(limit)
                """, logger: logger)
            var found = [LiveActivityRecipient]()
            for try await row in rows {
                let device = try DeviceRow.decode(row)
                let cells = row.makeRandomAccess()
                found.append(
                    LiveActivityRecipient(
                        tokenID: try cells[19].decode(Int64.self),
                        token: try DeviceToken(bytes: Array(buffer: try cells[20].decode(ByteBuffer.self))),
                        deviceID: device.id, environment: device.environment, device: device))
            }
            return found
        }
    }

    public func record(
        _ lease: LiveActivityLease, deliveries: [LiveActivityDelivery], drops: [LiveActivityTokenDrop], cursor: Int64,
        leaseUntil: Date
    ) async throws -> LiveActivityBatchReceipt? {
        try await DatabaseMetrics.measure("liveActivities.record") {
            try await client.withDomainTransaction(logger: logger) { connection -> LiveActivityBatchReceipt? in
                let held = try await connection.query(
                    """
                    UPDATE live_activity_updates u SET cursor = \(cursor), lease_expires_at = \(leaseUntil)
                    WHERE u.id = \(lease.update.id) AND u.lease_token = \(lease.token) AND u.state = 'sending'
                    RETURNING EXISTS (SELECT 1 FROM live_activity_updates n
                                      WHERE n.app_id = u.app_id AND n.activity_id = u.activity_id AND n.id > u.id
                                        AND n.state = 'queued')
                    """, logger: logger)
                guard let superseded = try await held.collect().first?.decode(Bool.self) else { return nil }
                let receipt = LiveActivityBatchReceipt(superseded: superseded)
                // Token drops first: the 410 rule (a token registered again after APNs's
                // timestamp stays) in one conditional DELETE; -1 stands for "no timestamp".
                var dropped: Int64 = 0
                if !drops.isEmpty {
                    let ids = drops.map(\.tokenID)
                    let stamps = drops.map { $0.unregisteredAt?.milliseconds ?? -1 }
                    let rows = try await connection.query(
                        """
                        DELETE FROM live_activity_tokens t
                        USING unnest(\(ids)::bigint[], \(stamps)::bigint[]) AS d(id, ms)
                        WHERE t.id = d.id AND (d.ms < 0 OR t.registered_at <= to_timestamp(d.ms / 1000.0))
                        RETURNING t.id
                        """, logger: logger)
                    dropped = Int64(try await rows.collect().count)
                }
                guard !deliveries.isEmpty else { return receipt }
                let tokenIDs = deliveries.map(\.tokenID)
                let deviceIDs = deliveries.map { $0.deviceID ?? 0 }
                let tokenBytes = deliveries.map { ByteBuffer(bytes: $0.token.bytes) }
                let outcomes = deliveries.map(\.outcome.kind.rawValue)
                let statuses = deliveries.map { Int32(clamping: $0.outcome.status ?? 0) }
                let reasons = deliveries.map { $0.outcome.reason ?? "" }
                let apnsIDs = deliveries.map { $0.apnsID ?? PostgresCampaignWork.noUUID }
                let languages = deliveries.map { $0.language?.value ?? "" }
                // Rows already there (a batch resent after a crash) count once.
                try await connection.query(
                    """
                    WITH inserted AS (
                        INSERT INTO live_activity_deliveries (update_id, token_id, device_id, token, outcome, status, reason,
                                                              apns_id, language)
                        SELECT \(lease.update.id), token_id, NULLIF(device_id, 0), token, outcome, NULLIF(status, 0),
                               NULLIF(reason, ''), NULLIF(apns_id, \(PostgresCampaignWork.noUUID)), NULLIF(language, '')
                        FROM unnest(\(tokenIDs)::bigint[], \(deviceIDs)::bigint[], \(tokenBytes)::bytea[], \(outcomes)::text[],
                                    \(statuses)::integer[], \(reasons)::text[], \(apnsIDs)::uuid[], \(languages)::text[])
                            AS t(token_id, device_id, token, outcome, status, reason, apns_id, language)
                        ON CONFLICT (update_id, token_id) DO NOTHING
                        RETURNING outcome)
                    UPDATE live_activity_updates SET
                        accepted = accepted + (SELECT count(*) FROM inserted WHERE outcome = 'accepted'),
                        failed = failed + (SELECT count(*) FROM inserted WHERE outcome <> 'accepted'),
                        dropped = dropped + \(dropped)
                    WHERE id = \(lease.update.id)
                    """, logger: logger)
                return receipt
            }
        }
    }

    public func finish(_ lease: LiveActivityLease, superseded: Bool, now: Date) async throws -> Bool {
        let since = now.addingTimeInterval(-LiveActivityRules.tokenLifetime)
        return try await DatabaseMetrics.measure("liveActivities.finish") {
            let rows = try await client.query(
                """
                UPDATE live_activity_updates u SET state = \(superseded ? "superseded" : "sent"), finished_at = \(now),
                    lease_owner = NULL, lease_expires_at = NULL,
                    superseded = u.superseded + CASE WHEN \(superseded) THEN
                        (SELECT count(*) FROM live_activity_tokens t
                         WHERE t.app_id = u.app_id AND t.activity_id = u.activity_id AND t.id > u.cursor
                           AND t.registered_at > \(since)) ELSE 0 END
                WHERE u.id = \(lease.update.id) AND u.lease_token = \(lease.token) AND u.state = 'sending'
                RETURNING u.id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    public func release(_ lease: LiveActivityLease) async throws {
        try await client.query(
            """
            UPDATE live_activity_updates SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL
            WHERE id = \(lease.update.id) AND lease_token = \(lease.token) AND state = 'sending'
            """, logger: logger)
    }

    public func sweepTokens(now: Date) async throws -> Int {
        let since = now.addingTimeInterval(-LiveActivityRules.tokenLifetime)
        return try await DatabaseMetrics.measure("liveActivities.sweep") {
            let old = try await client.query(
                "DELETE FROM live_activity_tokens WHERE registered_at <= \(since) RETURNING id", logger: logger)
            // An ended activity keeps its tokens until its end is sent, however early its dismissal.
            // The activities are found first and their tokens deleted apart: on a Citus cluster
            // the tokens are distributed and the activities are not, and one statement cannot
            // join them. Only activities ended within the tokens' lifetime can still have any
            // (a token is registered while its activity is active; older ones went above).
            let done = try await client.query(
                """
                SELECT a.app_id, a.activity_id FROM live_activities a
                WHERE a.state = 'ended' AND a.dismiss_at <= \(now) AND a.ended_at > \(since)
                  AND NOT EXISTS (SELECT 1 FROM live_activity_updates u
                                  WHERE u.app_id = a.app_id AND u.activity_id = a.activity_id
                                    AND u.state IN ('queued', 'sending'))
                """, logger: logger
            ).collect().map { try $0.decode((Int64, String).self) }
            let ended = try await client.query(
                """
                DELETE FROM live_activity_tokens
                WHERE (app_id, activity_id) IN (SELECT * FROM unnest(\(done.map(\.0))::bigint[], \(done.map(\.1))::text[]))
                RETURNING id
                """, logger: logger)
            return try await old.collect().count + ended.collect().count
        }
    }

    public func listenForUpdates(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await WorkSignal.listen(
            on: PostgresLiveActivityRepository.channel, client: client, for: duration, logger: logger, wake: wake)
    }
}

extension Duration {
    /// Whole and fractional seconds, for `Date` arithmetic.
    var seconds: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }
}
