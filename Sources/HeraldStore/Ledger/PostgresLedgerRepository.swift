import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The ledgers read back: the transactional ledger by user, token or request; a token's
/// history; a user's data, exported or erased. Campaign deliveries are keyed by campaign, so a
/// device's are found by probing the primary key of each of the app's latest campaigns
/// instead of indexing the biggest table a second time.
public struct PostgresLedgerRepository: LedgerRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func notifications(appID: Int64, query: NotificationQuery) async throws -> NotificationPage {
        try await DatabaseMetrics.measure("ledger.notifications") {
            let token = query.token.map { ByteBuffer(bytes: $0.bytes) }
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.notificationColumns) FROM notifications n
                WHERE n.app_id = \(appID)
                  AND (\(query.userID)::text IS NULL OR n.device_id IN (
                        SELECT id FROM devices WHERE app_id = \(appID) AND user_id = \(query.userID)))
                  AND (\(token)::bytea IS NULL OR n.token = \(token))
                  AND (\(query.requestID)::uuid IS NULL OR n.request_id = \(query.requestID))
                  AND (\(query.since)::timestamptz IS NULL OR n.created_at >= \(query.since))
                  AND (\(query.cursor)::bigint IS NULL OR n.id < \(query.cursor))
                ORDER BY n.id DESC
                LIMIT \(query.limit + 1)
                """, logger: logger)
            var records = try await rows.collect().map(Self.decodeNotification)
            var next: Int64?
            if records.count > query.limit {
                records.removeLast()
                next = records.last?.id
            }
            return NotificationPage(records: records, nextCursor: next)
        }
    }

    public func history(appID: Int64, token: DeviceToken) async throws -> DeviceHistory {
        try await DatabaseMetrics.measure("ledger.history") {
            let bytes = ByteBuffer(bytes: token.bytes)
            let label = try await PartLabels.label(ofToken: token, client: client, logger: logger)
            let part = PartLabels.condition("devices", label: label)
            let devices = try await client.query(
                "SELECT \(unescaped: DeviceRow.columns) FROM devices WHERE app_id = \(appID) AND \(unescaped: part) AND token = \(bytes)",
                logger: logger)
            let device = try await devices.collect().first.map(DeviceRow.decode)
            let notifications = try await client.query(
                """
                SELECT \(unescaped: Self.notificationColumns) FROM notifications n
                WHERE n.app_id = \(appID) AND n.token = \(bytes)
                ORDER BY n.id DESC LIMIT \(DeviceHistory.notificationLimit)
                """, logger: logger)
            let records = try await notifications.collect().map(Self.decodeNotification)
            var campaigns = [CampaignDeliveryRecord]()
            if let device {
                campaigns = try await Self.campaignDeliveries(
                    appID: appID, deviceIDs: [device.id], part: label, latestCampaigns: DeviceHistory.campaignLimit,
                    limit: DeviceHistory.campaignLimit, on: client, logger: logger)
            }
            return DeviceHistory(device: device, notifications: records, campaigns: campaigns)
        }
    }

    /// What campaigns did with these devices: each of the app's campaigns (or its latest
    /// `latestCampaigns`) probes the deliveries primary key `(app_id, campaign_id, device_id)`.
    /// The ledger rows of the devices, all in `part` (a ledger row lies in its device's part: on a
    /// Citus cluster one shard is read).
    static func campaignDeliveries(
        appID: Int64, deviceIDs: [Int64], part: Int32, latestCampaigns: Int?, limit: Int, on client: PostgresClient,
        logger: Logger
    ) async throws -> [CampaignDeliveryRecord] {
        guard !deviceIDs.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT c.public_id, c.name, d.device_id, d.outcome, d.status, d.reason, d.apns_id, d.language, d.created_at
            FROM (SELECT id, public_id, name FROM campaigns WHERE app_id = \(appID) ORDER BY id DESC
                  LIMIT \(latestCampaigns ?? Int.max)) c
            JOIN LATERAL (
                SELECT * FROM deliveries d
                WHERE d.app_id = \(appID) AND \(unescaped: PartLabels.condition("d", label: part)) AND d.campaign_id = c.id
                  AND d.device_id = ANY (\(deviceIDs)::bigint[])
            ) d ON true
            ORDER BY c.id DESC, d.device_id
            LIMIT \(limit)
            """, logger: logger)
        return try await rows.collect().map { row in
            let (campaign, name, deviceID, outcome, status, reason, apnsID, language, createdAt) = try row.decode(
                (UUID, String, Int64, String, Int32?, String?, UUID?, String?, Date).self)
            return CampaignDeliveryRecord(
                campaignID: campaign, campaignName: name, deviceID: deviceID,
                outcome: try StoreError.decode(outcome, as: DeliveryOutcome.Kind.self, column: "deliveries.outcome"),
                status: status.map(Int.init), reason: reason, apnsID: apnsID, language: language, recordedAt: createdAt)
        }
    }

    static let notificationColumns =
        "n.id, n.request_id, n.token, n.device_id, n.outcome, n.status, n.reason, n.apns_id, n.language, n.actor, n.created_at"

    static func decodeNotification(_ row: PostgresRow) throws -> NotificationRecord {
        let (id, requestID, token, deviceID, outcome, status, reason, apnsID, language, actor, createdAt) = try row.decode(
            (Int64, UUID, ByteBuffer, Int64?, String, Int32?, String?, UUID?, String?, String, Date).self)
        return NotificationRecord(
            id: id, requestID: requestID, token: try DeviceToken(bytes: Array(buffer: token)), deviceID: deviceID,
            outcome: try StoreError.decode(outcome, as: DeliveryOutcome.Kind.self, column: "notifications.outcome"),
            status: status.map(Int.init), reason: reason, apnsID: apnsID, language: language, actor: actor, createdAt: createdAt)
    }
}
