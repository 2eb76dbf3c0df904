import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Live Activity tokens, activities and updates in PostgreSQL (migration 0022).
public struct PostgresLiveActivityRepository: LiveActivityRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    /// The channel a queued update is announced on, so every instance's senders wake.
    static let channel = "herald_live_activities"

    public func registerStartToken(
        appID: Int64, device: DeviceToken, attributesType: String, token: DeviceToken
    ) async throws
        -> Bool
    {
        try await DatabaseMetrics.measure("liveActivities.registerStartToken") {
            let part = try await PartLabels.condition("devices", token: device, client: client, logger: logger)
            let rows = try await client.query(
                """
                INSERT INTO live_activity_start_tokens (app_id, device_id, part, attributes_type, token)
                SELECT app_id, id, part, \(attributesType), \(ByteBuffer(bytes: token.bytes)) FROM devices
                WHERE app_id = \(appID) AND \(unescaped: part) AND token = \(ByteBuffer(bytes: device.bytes))
                ON CONFLICT (app_id, device_id, attributes_type, part) DO UPDATE SET token = EXCLUDED.token, registered_at = EXCLUDED.registered_at
                RETURNING device_id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    public func removeStartToken(appID: Int64, device: DeviceToken, attributesType: String) async throws -> Bool {
        try await DatabaseMetrics.measure("liveActivities.removeStartToken") {
            let part = try await PartLabels.label(ofToken: device, client: client, logger: logger)
            let rows = try await client.query(
                """
                DELETE FROM live_activity_start_tokens s USING devices d
                WHERE d.app_id = \(appID) AND \(unescaped: PartLabels.condition("d", label: part))
                  AND d.token = \(ByteBuffer(bytes: device.bytes)) AND s.app_id = d.app_id
                  AND s.device_id = d.id AND \(unescaped: PartLabels.condition("s", label: part)) AND s.attributes_type = \(attributesType)
                RETURNING s.device_id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    public func startTokens(
        appID: Int64, device: DeviceToken
    ) async throws
        -> [(attributesType: String, tokenSuffix: String, registeredAt: Date)]
    {
        try await DatabaseMetrics.measure("liveActivities.startTokens") {
            let part = try await PartLabels.condition("d", token: device, client: client, logger: logger)
            let rows = try await client.query(
                """
                SELECT s.attributes_type, s.token, s.registered_at FROM live_activity_start_tokens s
                JOIN devices d ON d.app_id = s.app_id AND d.id = s.device_id AND d.part = s.part
                WHERE d.app_id = \(appID) AND \(unescaped: part) AND d.token = \(ByteBuffer(bytes: device.bytes))
                ORDER BY s.attributes_type
                """, logger: logger)
            var found = [(attributesType: String, tokenSuffix: String, registeredAt: Date)]()
            for try await (type, token, at) in rows.decode((String, ByteBuffer, Date).self) {
                found.append((type, String(Self.hex(token).suffix(8)), at))
            }
            return found
        }
    }

    public func registerUpdateToken(
        appID: Int64, activityID: String, device: DeviceToken, token: DeviceToken, now: Date
    )
        async throws -> UpdateTokenRegistration
    {
        try await DatabaseMetrics.measure("liveActivities.registerUpdateToken") {
            let part = try await PartLabels.condition("devices", token: device, client: client, logger: logger)
            return try await client.withDomainTransaction(logger: logger) { connection -> UpdateTokenRegistration in
                // The device is read from its part's shard on a Citus cluster; the activity's row
                // on the coordinator is written after that over one connection per node, as
                // after any read of a distributed table.
                try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                let devices = try await connection.query(
                    "SELECT id, part FROM devices WHERE app_id = \(appID) AND \(unescaped: part) AND token = \(ByteBuffer(bytes: device.bytes))",
                    logger: logger)
                guard let (deviceID, part) = try await devices.collect().first?.decode((Int64, Int32).self) else {
                    return .unknownDevice
                }
                let states = try await connection.query(
                    """
                    INSERT INTO live_activities (app_id, activity_id) VALUES (\(appID), \(activityID))
                    ON CONFLICT (app_id, activity_id) DO UPDATE SET app_id = EXCLUDED.app_id
                    RETURNING state
                    """, logger: logger)
                guard let state = try await states.collect().first?.decode(String.self), state == "active" else {
                    return .activityEnded
                }
                let rows = try await connection.query(
                    """
                    INSERT INTO live_activity_tokens (app_id, activity_id, device_id, part, token)
                    VALUES (\(appID), \(activityID), \(deviceID), \(part), \(ByteBuffer(bytes: token.bytes)))
                    ON CONFLICT (app_id, activity_id, device_id, part)
                        DO UPDATE SET token = EXCLUDED.token, registered_at = EXCLUDED.registered_at
                    RETURNING (xmax = 0)
                    """, logger: logger)
                let created = try await rows.collect().first?.decode(Bool.self) ?? true
                return .stored(created: created)
            }
        }
    }

    public func registerUpdateToken(
        appID: Int64, device: DeviceToken, attributesType: String, token: DeviceToken, now: Date
    ) async throws -> (UpdateTokenRegistration, activityID: String?) {
        let part = try await PartLabels.label(ofToken: device, client: client, logger: logger)
        let rows = try await client.query(
            """
            SELECT s.activity_id FROM live_activity_starts s
            JOIN devices d ON d.app_id = s.app_id AND d.id = s.device_id AND d.part = s.part
            WHERE d.app_id = \(appID) AND \(unescaped: PartLabels.condition("d", label: part))
              AND d.token = \(ByteBuffer(bytes: device.bytes)) AND s.attributes_type = \(attributesType)
            """, logger: logger)
        guard let activityID = try await rows.collect().first?.decode(String.self) else {
            let known = try await client.query(
                """
                SELECT 1 FROM devices WHERE app_id = \(appID) AND \(unescaped: PartLabels.condition("devices", label: part))
                  AND token = \(ByteBuffer(bytes: device.bytes))
                """, logger: logger)
            return (try await known.collect().isEmpty ? .unknownDevice : .noStartedActivity, nil)
        }
        let outcome = try await registerUpdateToken(
            appID: appID, activityID: activityID, device: device, token: token, now: now)
        return (outcome, activityID)
    }

    public func removeUpdateToken(appID: Int64, activityID: String, device: DeviceToken) async throws -> Bool {
        try await DatabaseMetrics.measure("liveActivities.removeUpdateToken") {
            let part = try await PartLabels.label(ofToken: device, client: client, logger: logger)
            let rows = try await client.query(
                """
                DELETE FROM live_activity_tokens t USING devices d
                WHERE t.app_id = \(appID) AND t.activity_id = \(activityID) AND d.app_id = t.app_id AND t.device_id = d.id
                  AND \(unescaped: PartLabels.condition("t", label: part)) AND \(unescaped: PartLabels.condition("d", label: part))
                  AND d.token = \(ByteBuffer(bytes: device.bytes))
                RETURNING t.id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    /// The live token counts of activities, tokens past their lifetime left out. A query of its
    /// own: on a Citus cluster the tokens are distributed and the activities are not, and a
    /// correlated subquery between them is refused.
    private func tokenCounts(appID: Int64, activityIDs: [String], now: Date) async throws -> [String: Int64] {
        guard !activityIDs.isEmpty else { return [:] }
        let rows = try await client.query(
            """
            SELECT activity_id, count(*) FROM live_activity_tokens
            WHERE app_id = \(appID) AND activity_id = ANY(\(activityIDs)::text[])
              AND registered_at > \(now.addingTimeInterval(-LiveActivityRules.tokenLifetime))
            GROUP BY activity_id
            """, logger: logger)
        var counts = [String: Int64]()
        for try await (id, count) in rows.decode((String, Int64).self) { counts[id] = count }
        return counts
    }

    public func activity(appID: Int64, activityID: String, now: Date) async throws -> LiveActivity? {
        try await DatabaseMetrics.measure("liveActivities.activity") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: LiveActivityRow.activityColumns)
                FROM live_activities a WHERE a.app_id = \(appID) AND a.activity_id = \(activityID)
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let counts = try await tokenCounts(appID: appID, activityIDs: [activityID], now: now)
            return try LiveActivityRow.decodeActivity(row, tokens: counts)
        }
    }

    public func activities(
        appID: Int64, state: LiveActivity.State?, cursor: String?, limit: Int, now: Date
    ) async throws
        -> LiveActivityPage
    {
        try await DatabaseMetrics.measure("liveActivities.list") {
            // The cursor is the last row's creation time (microseconds) and ID: newest first; none
            // starts at the newest.
            let after = cursor.flatMap { NewestFirstCursor($0) }
            let rows = try await client.query(
                """
                SELECT \(unescaped: LiveActivityRow.activityColumns)
                FROM live_activities a
                WHERE a.app_id = \(appID) AND (\(state?.rawValue)::text IS NULL OR a.state = \(state?.rawValue))
                  AND (\(after?.microseconds)::bigint IS NULL
                       OR (a.created_at, a.activity_id)
                          < (timestamptz 'epoch' + \(after?.microseconds ?? 0) * interval '1 microsecond', \(after?.key ?? "")))
                ORDER BY a.created_at DESC, a.activity_id DESC
                LIMIT \(limit + 1)
                """, logger: logger)
            let found = try await rows.collect()
            let counts = try await tokenCounts(
                appID: appID, activityIDs: try found.map { try $0.makeRandomAccess()[1].decode(String.self) }, now: now)
            var activities = try found.map { try LiveActivityRow.decodeActivity($0, tokens: counts) }
            var next: String?
            if activities.count > limit {
                activities.removeLast()
                next = activities.last.map { NewestFirstCursor(after: $0.createdAt, key: $0.activityID).description }
            }
            return LiveActivityPage(activities: activities, nextCursor: next)
        }
    }

    public func enqueue(
        appID: Int64, activityID: String, request: LiveActivityUpdateRequest, highPriorityPerHour: Int, actor: String, now: Date
    ) async throws -> LiveActivityEnqueueResult {
        do {
            return try await DatabaseMetrics.measure("liveActivities.enqueue") {
                try await client.withDomainTransaction(logger: logger) { connection in
                    // Counting the activity's tokens reaches every part's shard on a Citus cluster;
                    // the updates on the coordinator may be written after that only over one
                    // connection per node.
                    try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                    return try await enqueue(
                        appID: appID, activityID: activityID, request: request, allowance: highPriorityPerHour, actor: actor,
                        now: now, on: connection)
                }
            }
        } catch let error where PostgresErrors.isUniqueViolation(error) {
            // The same idempotency key raced in from another request: answer the first.
            guard let key = request.idempotencyKey, let first = try await update(appID: appID, idempotencyKey: key) else {
                throw error
            }
            return .repeated(first)
        }
    }

    private func enqueue(
        appID: Int64, activityID: String, request: LiveActivityUpdateRequest, allowance: Int, actor: String, now: Date,
        on connection: PostgresConnection
    ) async throws -> LiveActivityEnqueueResult {
        if let key = request.idempotencyKey {
            let rows = try await connection.query(
                """
                SELECT \(unescaped: LiveActivityRow.updateColumns) FROM live_activity_updates u
                WHERE u.app_id = \(appID) AND u.idempotency_key = \(key)
                """, logger: logger)
            if let first = try await rows.collect().first { return .repeated(try LiveActivityRow.decodeUpdate(first)) }
        }
        let activities = try await connection.query(
            """
            SELECT state, last_timestamp FROM live_activities
            WHERE app_id = \(appID) AND activity_id = \(activityID) FOR UPDATE
            """, logger: logger)
        guard let (state, lastTimestamp) = try await activities.collect().first?.decode((String, Int64).self) else {
            return .unknownActivity
        }
        guard state == LiveActivity.State.active.rawValue else { return .ended }
        let hourAgo = now.addingTimeInterval(-3600)
        let usedRows = try await connection.query(
            """
            SELECT count(*) FROM live_activity_updates
            WHERE app_id = \(appID) AND activity_id = \(activityID) AND high_priority AND created_at > \(hourAgo)
            """, logger: logger)
        let used = try await usedRows.collect().first?.decode(Int64.self) ?? 0
        let decision = LiveActivityPriorityDecision.decide(
            event: request.event, alerts: request.alert != nil, requested: request.priority, used: Int(used),
            allowance: allowance)
        let timestamp = LiveActivityRules.nextTimestamp(after: Int(lastTimestamp), now: now)
        // Queued updates this one makes stale are dropped (an end is never queued behind another
        // update: the activity refuses updates once it has one).
        let since = now.addingTimeInterval(-LiveActivityRules.tokenLifetime)
        try await connection.query(
            """
            UPDATE live_activity_updates SET state = 'superseded', finished_at = \(now),
                superseded = (SELECT count(*) FROM live_activity_tokens t
                              WHERE t.app_id = \(appID) AND t.activity_id = \(activityID) AND t.registered_at > \(since))
            WHERE app_id = \(appID) AND activity_id = \(activityID) AND state = 'queued' AND event <> 'end'
            """, logger: logger)
        let stored = try CampaignJSON.encode(LiveActivityRow.StoredRequest(request))
        let rows = try await connection.query(
            """
            INSERT INTO live_activity_updates AS u (app_id, activity_id, event, request, aps_timestamp, priority,
                priority_lowered, high_priority, idempotency_key, actor, created_at)
            VALUES (\(appID), \(activityID), \(request.event.rawValue), \(stored)::jsonb, \(Int64(timestamp)),
                \(Int16(decision.priority.rawValue)), \(decision.lowered), \(decision.countsTowardsAllowance),
                \(request.idempotencyKey), \(actor), \(now))
            RETURNING \(unescaped: LiveActivityRow.updateColumns)
            """, logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        let update = try LiveActivityRow.decodeUpdate(row)
        let ending = request.event == .end
        let dismissAt = request.dismissalDate ?? now.addingTimeInterval(LiveActivityRules.defaultDismissalDelay)
        try await connection.query(
            """
            UPDATE live_activities SET last_timestamp = \(Int64(timestamp)), last_update_at = \(now),
                state = CASE WHEN \(ending) THEN 'ended' ELSE state END,
                ended_at = CASE WHEN \(ending) THEN \(now) ELSE ended_at END,
                dismiss_at = CASE WHEN \(ending) THEN \(dismissAt) ELSE dismiss_at END
            WHERE app_id = \(appID) AND activity_id = \(activityID)
            """, logger: logger)
        try await connection.query("SELECT pg_notify(\(Self.channel), '')", logger: logger)
        return .queued(update)
    }

    private func update(appID: Int64, idempotencyKey: String) async throws -> LiveActivityUpdate? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: LiveActivityRow.updateColumns) FROM live_activity_updates u
            WHERE u.app_id = \(appID) AND u.idempotency_key = \(idempotencyKey)
            """, logger: logger)
        return try await rows.collect().first.map(LiveActivityRow.decodeUpdate)
    }

    public func update(appID: Int64, activityID: String, updateID: Int64) async throws -> LiveActivityUpdate? {
        try await DatabaseMetrics.measure("liveActivities.update") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: LiveActivityRow.updateColumns) FROM live_activity_updates u
                WHERE u.id = \(updateID) AND u.app_id = \(appID) AND u.activity_id = \(activityID)
                """, logger: logger)
            return try await rows.collect().first.map(LiveActivityRow.decodeUpdate)
        }
    }

    public func updates(appID: Int64, activityID: String, beforeID: Int64?, limit: Int) async throws -> [LiveActivityUpdate] {
        try await DatabaseMetrics.measure("liveActivities.updates") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: LiveActivityRow.updateColumns) FROM live_activity_updates u
                WHERE u.app_id = \(appID) AND u.activity_id = \(activityID) AND u.id < \(beforeID ?? Int64.max)
                ORDER BY u.id DESC LIMIT \(limit)
                """, logger: logger)
            return try await rows.collect().map(LiveActivityRow.decodeUpdate)
        }
    }

    public func deliveries(updateID: Int64, afterTokenID: Int64?, limit: Int) async throws -> [LiveActivityDelivery] {
        try await DatabaseMetrics.measure("liveActivities.deliveries") {
            let rows = try await client.query(
                """
                SELECT token_id, device_id, token, outcome, status, reason, apns_id, language, recorded_at
                FROM live_activity_deliveries
                WHERE update_id = \(updateID) AND token_id > \(afterTokenID ?? 0)
                ORDER BY token_id LIMIT \(limit)
                """, logger: logger)
            var found = [LiveActivityDelivery]()
            for try await (tokenID, deviceID, token, outcome, status, reason, apnsID, language, at) in rows.decode(
                (Int64, Int64?, ByteBuffer, String, Int32?, String?, UUID?, String?, Date).self)
            {
                let kind = try StoreError.decode(outcome, as: DeliveryOutcome.Kind.self, column: "live_activity_deliveries.outcome")
                found.append(
                    LiveActivityDelivery(
                        tokenID: tokenID, deviceID: deviceID, token: try DeviceToken(bytes: Array(buffer: token)),
                        outcome: DeliveryOutcome(kind: kind, status: status.map(Int.init), reason: reason), apnsID: apnsID,
                        language: language.flatMap(LanguageTag.init), recordedAt: at))
            }
            return found
        }
    }

    static func hex(_ buffer: ByteBuffer) -> String {
        buffer.readableBytesView.map { String(format: "%02x", $0) }.joined()
    }
}
