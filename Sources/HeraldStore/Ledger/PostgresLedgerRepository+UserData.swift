import APNSCore
import Crypto
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// A user's data requests (docs/admin.md "A user's data requests"): each list read a page at a
/// time by keyset, so an export of any size streams in bounded memory; erase in one
/// transaction. A user's devices are found through `(app_id, user_id)`; webhook messages about
/// them through the app's endpoints (the outbox has no index on what a message says: erasing
/// and exporting are rare, and an index would cost every message written).
extension PostgresLedgerRepository {
    /// The user's devices' IDs, as a subquery over binds `$1` (app) and `$2` (user).
    private static let userDevices = "(SELECT id FROM devices WHERE app_id = $1 AND user_id = $2)"
    /// Webhook messages about the user among the app's endpoints': named by user ID, or by a
    /// token of one of the user's devices.
    private static let userMessages = """
        m.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE app_id = $1)
        AND (m.data ->> 'userID' = $2
             OR m.data ->> 'token' IN (SELECT encode(token, 'hex') FROM devices WHERE app_id = $1 AND user_id = $2))
        """
    private static let audienceNames = "audience -> 'userIDs' @> jsonb_build_array($2::text)"

    public func holdsUser(appID: Int64, userID: String) async throws -> Bool {
        try await DatabaseMetrics.measure("ledger.holdsUser") {
            let rows = try await client.query(
                Self.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM devices WHERE app_id = $1 AND user_id = $2)
                        OR EXISTS (SELECT 1 FROM events WHERE app_id = $1 AND user_id = $2)
                        OR EXISTS (SELECT 1 FROM webhook_messages m WHERE \(Self.userMessages))
                        OR EXISTS (SELECT 1 FROM campaigns WHERE app_id = $1 AND \(Self.audienceNames))
                    """, appID, userID), logger: logger)
            return try await rows.collect().first?.decode(Bool.self) ?? false
        }
    }

    public func userDevices(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<Device>
    {
        try await page("ledger.export.devices", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT \(DeviceRow.columns) FROM devices
                    WHERE app_id = $1 AND user_id = $2 AND id > $3 ORDER BY id LIMIT $4
                    """, appID, userID, after?.major ?? 0, Int64(limit + 1)), logger: logger
            ).collect().map { row in
                let device = try DeviceRow.decode(row)
                return (UserDataCursor(major: device.id), device)
            }
        }
    }

    public func userNotifications(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<NotificationRecord>
    {
        try await page("ledger.export.notifications", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT \(Self.notificationColumns) FROM notifications n
                    WHERE n.app_id = $1 AND n.device_id IN \(Self.userDevices) AND n.id < $3
                    ORDER BY n.id DESC LIMIT $4
                    """, appID, userID, after?.major ?? Int64.max, Int64(limit + 1)), logger: logger
            ).collect().map { row in
                let record = try Self.decodeNotification(row)
                return (UserDataCursor(major: record.id), record)
            }
        }
    }

    /// Newest campaign first, then by device; each campaign probes the deliveries primary key.
    public func userCampaignDeliveries(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<CampaignDeliveryRecord>
    {
        try await page("ledger.export.campaigns", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT c.id, c.public_id, c.name, d.device_id, d.outcome, d.status, d.reason, d.apns_id, d.language,
                           d.created_at
                    FROM (SELECT id, public_id, name FROM campaigns WHERE app_id = $1 AND id <= $3) c
                    JOIN LATERAL (
                        SELECT * FROM deliveries d
                        WHERE d.app_id = $1 AND d.campaign_id = c.id AND d.device_id IN \(Self.userDevices)
                          AND (c.id < $3 OR d.device_id > $5)
                    ) d ON true
                    ORDER BY c.id DESC, d.device_id
                    LIMIT $4
                    """, appID, userID, after?.major ?? Int64.max, Int64(limit + 1), after?.minor ?? 0), logger: logger
            ).collect().map { row in
                let (id, campaign, name, deviceID, outcome, status, reason, apnsID, language, createdAt) = try row.decode(
                    (Int64, UUID, String, Int64, String, Int32?, String?, UUID?, String?, Date).self)
                let record = CampaignDeliveryRecord(
                    campaignID: campaign, campaignName: name, deviceID: deviceID,
                    outcome: try StoreError.decode(outcome, as: DeliveryOutcome.Kind.self, column: "deliveries.outcome"),
                    status: status.map(Int.init), reason: reason, apnsID: apnsID, language: language, recordedAt: createdAt)
                return (UserDataCursor(major: id, minor: deviceID), record)
            }
        }
    }

    public func userEvents(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<AppEventRecord>
    {
        try await page("ledger.export.events", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT e.id, e.kind, e.occurred_at, e.apns_id, e.name, e.value, c.public_id, e.properties::text
                    FROM events e LEFT JOIN campaigns c ON c.id = e.campaign_id
                    WHERE e.app_id = $1 AND (e.user_id = $2 OR e.device_id IN \(Self.userDevices)) AND e.id < $3
                    ORDER BY e.id DESC LIMIT $4
                    """, appID, userID, after?.major ?? Int64.max, Int64(limit + 1)), logger: logger
            ).collect().map { row in
                let (id, kind, occurredAt, apnsID, name, value, campaign, properties) = try row.decode(
                    (Int64, String, Date, UUID?, String?, Double?, UUID?, String?).self)
                return (
                    UserDataCursor(major: id),
                    AppEventRecord(
                        kind: kind, occurredAt: occurredAt, apnsID: apnsID, name: name, value: value, campaignID: campaign,
                        properties: try properties.map { try CampaignJSON.decode([String: PayloadValue].self, from: $0) })
                )
            }
        }
    }

    /// Messages to the app's own endpoints about the user; the token shows as its last 8 hex
    /// digits, as everywhere in an export.
    public func userWebhookMessages(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<UserWebhookMessage>
    {
        try await page("ledger.export.webhooks", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT m.id, m.message_id, m.endpoint_id, m.type, m.state, m.occurred_at, (m.data - 'token')::text
                    FROM webhook_messages m
                    WHERE \(Self.userMessages) AND m.id > $3
                    ORDER BY m.id LIMIT $4
                    """, appID, userID, after?.major ?? 0, Int64(limit + 1)), logger: logger
            ).collect().map { row in
                let (id, messageID, endpointID, type, state, occurredAt, data) = try row.decode(
                    (Int64, UUID, Int64, String, String, Date, String).self)
                let message = UserWebhookMessage(
                    messageID: messageID, endpointID: endpointID, type: type, state: state, occurredAt: occurredAt,
                    data: try JSONReader.parse(data.utf8))
                return (UserDataCursor(major: id), message)
            }
        }
    }

    public func userCampaignAudiences(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<UserCampaignAudience>
    {
        try await page("ledger.export.audiences", limit: limit) {
            try await client.query(
                Self.query(
                    """
                    SELECT id, public_id, name, state FROM campaigns
                    WHERE app_id = $1 AND \(Self.audienceNames) AND id > $3 ORDER BY id LIMIT $4
                    """, appID, userID, after?.major ?? 0, Int64(limit + 1)), logger: logger
            ).collect().map { row in
                let (id, campaignID, name, state) = try row.decode((Int64, UUID, String, String).self)
                return (UserDataCursor(major: id), UserCampaignAudience(campaignID: campaignID, name: name, state: state))
            }
        }
    }

    public func erase(appID: Int64, userID: String, actor: String) async throws -> UserErasure {
        try await DatabaseMetrics.measure("ledger.erase") {
            try await client.withDomainTransaction(logger: logger) { connection in
                // The user's devices lie in every part's shard on a Citus cluster; the tables on
                // the coordinator may be written after reading them only over one connection per node.
                try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                // What names the user's tokens goes first, while the devices still say which they are.
                let webhookMessages = try await Self.count(
                    """
                    WITH changed AS (
                        UPDATE webhook_messages m SET data = m.data - 'token' - 'userID' WHERE \(Self.userMessages) RETURNING 1
                    ) SELECT count(*) FROM changed
                    """, appID, userID, on: connection, logger: logger)
                let deleted = try await connection.query(
                    "DELETE FROM devices WHERE app_id = \(appID) AND user_id = \(userID) RETURNING id, token", logger: logger
                ).collect().map { try $0.decode((Int64, ByteBuffer).self) }
                let ids = deleted.map(\.0)
                let tokens = deleted.map(\.1)
                // A ledger row keeps its outcome but no longer names the token: it holds the
                // token's SHA-256 instead, which cannot be sent to or matched to a person.
                let notifications =
                    try await connection.query(
                        """
                        WITH changed AS (
                            UPDATE notifications SET token = sha256(token), device_id = NULL
                            WHERE app_id = \(appID) AND (device_id = ANY (\(ids)::bigint[]) OR token = ANY (\(tokens)::bytea[]))
                            RETURNING 1
                        ) SELECT count(*) FROM changed
                        """, logger: logger
                    ).collect().first?.decode(Int64.self) ?? 0
                try await connection.query(
                    """
                    UPDATE test_deliveries SET token = sha256(token), device_id = NULL
                    WHERE app_id = \(appID) AND token = ANY (\(tokens)::bytea[])
                    """, logger: logger)
                let events =
                    try await connection.query(
                        """
                        WITH changed AS (
                            UPDATE events SET user_id = NULL, device_id = NULL, properties = NULL
                            WHERE app_id = \(appID) AND (user_id = \(userID) OR device_id = ANY (\(ids)::bigint[]))
                            RETURNING 1
                        ) SELECT count(*) FROM changed
                        """, logger: logger
                    ).collect().first?.decode(Int64.self) ?? 0
                try await connection.query(
                    "DELETE FROM frequency_sends WHERE app_id = \(appID) AND device_id = ANY (\(ids)::bigint[])", logger: logger)
                // Journeys keep their counts but no longer know whose entries they were: each
                // leaves the journey (outcome `removed` if still inside), and its sends' rows
                // hold their tokens' SHA-256.
                let keys = ["u:\(userID)"] + ids.map { "d:\($0)" }
                try await connection.query(
                    """
                    WITH erased AS (
                        UPDATE journey_entries SET user_key = 'erased:' || id, user_id = NULL, device_id = NULL,
                            properties = NULL, outcome = CASE WHEN step IS NULL THEN outcome ELSE 'removed' END,
                            finished_at = coalesce(finished_at, \(Date())), step = NULL, due_at = NULL,
                            lease_owner = NULL, lease_until = NULL
                        WHERE app_id = \(appID) AND user_key = ANY (\(keys)::text[])
                        RETURNING id)
                    UPDATE journey_deliveries SET token = sha256(token), device_id = NULL
                    WHERE app_id = \(appID) AND entry_id IN (SELECT id FROM erased)
                    """, logger: logger)
                // The user leaves every audience that named them; a list left empty matches
                // nobody (it never means "everyone").
                let audiences = try await Self.count(
                    """
                    WITH changed AS (
                        UPDATE campaigns SET audience = jsonb_set(audience, '{userIDs}', coalesce(
                            (SELECT jsonb_agg(u) FROM jsonb_array_elements(audience -> 'userIDs') u
                             WHERE u <> to_jsonb($2::text)), '[]'::jsonb))
                        WHERE app_id = $1 AND \(Self.audienceNames)
                        RETURNING 1
                    ) SELECT count(*) FROM changed
                    """, appID, userID, on: connection, logger: logger)
                let erasure = UserErasure(
                    devicesDeleted: ids.count, notificationsAnonymised: Int(notifications), eventsAnonymised: Int(events),
                    webhookMessagesRedacted: webhookMessages, campaignAudiencesRedacted: audiences)
                // Erasing a user Herald knows nothing of changes nothing, and is not recorded.
                guard !erasure.isEmpty else { return erasure }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "user.erase", appID: appID,
                    details: [
                        // The audit log must not keep what was erased: a digest tells requests apart.
                        "userIDSHA256": .string(SHA256.hash(data: Data(userID.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()),
                        "devicesDeleted": .int(erasure.devicesDeleted),
                        "notificationsAnonymised": .int(erasure.notificationsAnonymised),
                        "eventsAnonymised": .int(erasure.eventsAnonymised),
                        "webhookMessagesRedacted": .int(erasure.webhookMessagesRedacted),
                        "campaignAudiencesRedacted": .int(erasure.campaignAudiencesRedacted),
                    ], logger: logger)
                return erasure
            }
        }
    }

    /// One page: `read` fetches up to `limit + 1` rows with their positions, the extra one
    /// saying there is more.
    private func page<Record: Sendable>(
        _ operation: StaticString, limit: Int, read: () async throws -> [(UserDataCursor, Record)]
    ) async throws -> UserDataPage<Record> {
        try await DatabaseMetrics.measure(operation) {
            let rows = try await read()
            guard rows.count > limit else { return UserDataPage(records: rows.map(\.1), next: nil) }
            return UserDataPage(records: rows.prefix(limit).map(\.1), next: rows[limit - 1].0)
        }
    }

    /// A query over binds `$1` (the app) and `$2` (the user), then `extra` in order.
    private static func query(_ sql: String, _ appID: Int64, _ userID: String, _ extra: Int64...) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(appID)
        binds.append(userID)
        for value in extra { binds.append(value) }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    private static func count(
        _ sql: String, _ appID: Int64, _ userID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        Int(try await connection.query(query(sql, appID, userID), logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }
}
