import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Applies APNs's token verdicts to the registry, inside the caller's transaction.
enum DeviceInvalidator {
    /// docs/rules.md rule 1 in one statement: with APNs's 410 timestamp T the device is
    /// invalidated only where `registered_at <= T` (a later registration wins, with no
    /// read-then-write race); other token errors invalidate unconditionally. Devices already
    /// invalid are left as they are. Each device invalidated queues a `device.invalidated`
    /// webhook message in the same statement. Returns the IDs of the devices this invalidated.
    static func apply(
        _ invalidations: [DeviceInvalidation], appID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> Set<Int64> {
        guard !invalidations.isEmpty else { return [] }
        let ids = invalidations.map(\.deviceID)
        let reasons = invalidations.map(\.reason)
        // Arrays cannot hold NULL here: an unconditional invalidation carries a placeholder
        // time and `conditional = false`. APNs's milliseconds become a timestamptz in integer
        // arithmetic, never through a floating-point number of seconds.
        let milliseconds = invalidations.map { $0.unregisteredAt?.milliseconds ?? 0 }
        let conditional = invalidations.map { $0.unregisteredAt != nil }
        let rows = try await connection.query(
            """
            WITH input AS (
                SELECT device_id, reason, conditional,
                       timestamptz 'epoch' + milliseconds * interval '1 millisecond' AS unregistered_at
                FROM unnest(\(ids)::bigint[], \(reasons)::text[], \(milliseconds)::bigint[], \(conditional)::boolean[])
                    AS t(device_id, reason, milliseconds, conditional)
            ), invalidated AS (
                UPDATE devices d
                SET invalidated_at = now(), invalidation_reason = i.reason, updated_at = now(),
                    apns_unregistered_at = CASE WHEN i.conditional THEN i.unregistered_at ELSE d.apns_unregistered_at END
                FROM input i
                WHERE d.app_id = \(appID) AND d.id = i.device_id AND d.invalidated_at IS NULL
                  AND (NOT i.conditional OR d.registered_at <= i.unregistered_at)
                RETURNING d.id, d.token, d.environment, d.user_id, d.invalidation_reason, d.invalidated_at,
                          CASE WHEN i.conditional THEN i.unregistered_at END AS apns_timestamp
            ), webhooks AS (
                -- docs/webhooks.md "device.invalidated": queued with the change, for each
                -- endpoint that takes it (none: nothing is written). Only the app's own
                -- endpoints get the full token and the user ID: the copies for endpoints of
                -- every app are stored without them.
                INSERT INTO webhook_messages (endpoint_id, type, data)
                SELECT e.id, 'device.invalidated',
                       jsonb_strip_nulls(jsonb_build_object(
                           'app', (SELECT bundle_id FROM apps WHERE id = \(appID)),
                           'token', CASE WHEN e.app_id IS NOT NULL THEN encode(v.token, 'hex') END,
                           'tokenSuffix', right(encode(v.token, 'hex'), 8),
                           'environment', v.environment,
                           'userID', CASE WHEN e.app_id IS NOT NULL THEN v.user_id END,
                           'reason', v.invalidation_reason,
                           'invalidatedAt', herald_rfc3339(v.invalidated_at),
                           'apnsTimestamp', herald_rfc3339(v.apns_timestamp)))
                FROM invalidated v
                JOIN webhook_endpoints e ON (e.app_id = \(appID) OR e.app_id IS NULL)
                                        AND 'device.invalidated' = ANY (e.events)
            )
            SELECT id FROM invalidated
            """, logger: logger)
        var changed = Set<Int64>()
        for try await id in rows.decode(Int64.self) { changed.insert(id) }
        return changed
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
