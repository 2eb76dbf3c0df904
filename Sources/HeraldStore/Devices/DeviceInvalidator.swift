import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Applies APNs's token verdicts to the registry, inside the caller's transaction.
enum DeviceInvalidator {
    /// docs/rules.md rule 1: with APNs's 410 timestamp T the device is invalidated only where
    /// `registered_at <= T` (a later registration wins, with no read-then-write race, as the
    /// condition is in the `UPDATE`); other token errors invalidate unconditionally. Devices
    /// already invalid are left as they are. Each device invalidated queues a
    /// `device.invalidated` webhook message in the caller's transaction. Returns the IDs of the
    /// devices this invalidated.
    ///
    /// `part` is the label of the devices' part (from the chunk) when they all lie in one, so that on a Citus cluster each statement goes to that part's shard only
    /// (docs/scaling.md, "When a worker stops"). Three statements rather than one with CTEs:
    /// Citus refuses a distributed `UPDATE` whose `SET` has a `CASE` over a non-immutable
    /// expression, and sends a CTE that another reads to every node.
    static func apply(
        _ invalidations: [DeviceInvalidation], appID: Int64, part: Int32? = nil, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Set<Int64> {
        guard !invalidations.isEmpty else { return [] }
        // Across parts, the UPDATE reaches several shards of a node at once, after which Citus
        // refuses the transaction's writes to tables on the coordinator (the chunk's counters).
        if part == nil { try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger) }
        var invalidated = Set<Int64>()
        var timestamped = [Int64]()
        // With APNs's timestamp: only if not registered again after it.
        let conditional = invalidations.compactMap { i in i.unregisteredAt.map { (i, ExactTimestamp($0)) } }
        if !conditional.isEmpty {
            let ids = conditional.map(\.0.deviceID)
            let rows = try await connection.query(
                """
                UPDATE devices d
                SET invalidated_at = now(), invalidation_reason = i.reason, updated_at = now(),
                    apns_unregistered_at = i.unregistered_at
                FROM unnest(\(ids)::bigint[], \(conditional.map(\.0.reason))::text[], \(conditional.map(\.1))::timestamptz[])
                    AS i(device_id, reason, unregistered_at)
                WHERE d.app_id = \(appID) AND \(unescaped: PartLabels.condition("d", label: part)) AND d.id = ANY(\(ids)::bigint[]) AND d.id = i.device_id
                  AND d.invalidated_at IS NULL AND d.registered_at <= i.unregistered_at
                RETURNING d.id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) {
                invalidated.insert(id)
                timestamped.append(id)
            }
        }
        let unconditional = invalidations.filter { $0.unregisteredAt == nil }
        if !unconditional.isEmpty {
            let ids = unconditional.map(\.deviceID)
            let rows = try await connection.query(
                """
                UPDATE devices d
                SET invalidated_at = now(), invalidation_reason = i.reason, updated_at = now()
                FROM unnest(\(ids)::bigint[], \(unconditional.map(\.reason))::text[]) AS i(device_id, reason)
                WHERE d.app_id = \(appID) AND \(unescaped: PartLabels.condition("d", label: part)) AND d.id = ANY(\(ids)::bigint[]) AND d.id = i.device_id
                  AND d.invalidated_at IS NULL
                RETURNING d.id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { invalidated.insert(id) }
        }
        if !invalidated.isEmpty {
            try await queueWebhooks(
                Array(invalidated), timestamped: timestamped, appID: appID, part: part, on: connection, logger: logger)
        }
        return invalidated
    }

    /// docs/webhooks.md "device.invalidated": one message per device invalidated, for each
    /// endpoint that takes it (none: nothing is written), built from the rows as they now are.
    /// Only the app's own endpoints get the full token and the user ID: the copies for
    /// endpoints of every app are stored without them.
    private static func queueWebhooks(
        _ ids: [Int64], timestamped: [Int64], appID: Int64, part: Int32?, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        _ = try await connection.query(
            """
            INSERT INTO webhook_messages (endpoint_id, type, data)
            SELECT e.id, 'device.invalidated',
                   jsonb_strip_nulls(jsonb_build_object(
                       'app', a.bundle_id,
                       'token', CASE WHEN e.app_id IS NOT NULL THEN encode(v.token, 'hex') END,
                       'tokenSuffix', right(encode(v.token, 'hex'), 8),
                       'environment', v.environment,
                       'userID', CASE WHEN e.app_id IS NOT NULL THEN v.user_id END,
                       'reason', v.invalidation_reason,
                       'invalidatedAt', herald_rfc3339(v.invalidated_at),
                       'apnsTimestamp', herald_rfc3339(CASE WHEN v.id = ANY(\(timestamped)::bigint[])
                                                            THEN v.apns_unregistered_at END)))
            FROM devices v
            JOIN apps a ON a.id = v.app_id
            JOIN webhook_endpoints e ON (e.app_id = v.app_id OR e.app_id IS NULL) AND 'device.invalidated' = ANY (e.events)
            WHERE v.app_id = \(appID) AND \(unescaped: PartLabels.condition("v", label: part))
              AND v.id = ANY(\(ids)::bigint[])
            """, logger: logger
        ).collect()
    }

    /// The same rule for push-to-start tokens (docs/live-activities.md "Tokens"): a 410 drops a
    /// device's start token of the type only if it was not registered again after APNs's
    /// timestamp; other token errors drop it whatever. The device itself stays valid: its
    /// device token was not what APNs refused. Returns how many tokens were dropped.
    static func dropStartTokens(
        _ invalidations: [DeviceInvalidation], attributesType: String, appID: Int64, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int {
        guard !invalidations.isEmpty else { return 0 }
        let ids = invalidations.map(\.deviceID)
        let milliseconds = invalidations.map { $0.unregisteredAt?.milliseconds ?? -1 }
        let rows = try await connection.query(
            """
            DELETE FROM live_activity_start_tokens s
            USING unnest(\(ids)::bigint[], \(milliseconds)::bigint[]) AS i(device_id, milliseconds)
            WHERE s.app_id = \(appID) AND s.device_id = i.device_id AND s.attributes_type = \(attributesType)
              AND (i.milliseconds < 0
                   OR s.registered_at <= timestamptz 'epoch' + i.milliseconds * interval '1 millisecond')
            RETURNING s.device_id
            """, logger: logger)
        return try await rows.collect().count
    }
}
