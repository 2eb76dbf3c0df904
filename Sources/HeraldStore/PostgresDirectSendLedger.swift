import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Direct sends in PostgreSQL: transactional notifications in `notifications`, a campaign's
/// test sends in `test_deliveries`; one transaction with the invalidations their answers carry.
public struct PostgresDirectSendLedger: DirectSendLedger {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func reservePlaces(appID: Int64, devices: [(id: Int64, bucket: Int)], caps: [FrequencyCap], now: Date)
        async throws -> (key: Int64, granted: Set<Int64>)
    {
        // A key of the request's own, negative so it never meets a campaign's ID.
        let key = -Int64.random(in: 1...Int64.max)
        guard !devices.isEmpty, !caps.isEmpty else { return (key, Set(devices.map(\.id))) }
        let granted = try await DatabaseMetrics.measure("directSends.reservePlaces") {
            try await client.withDomainTransaction(logger: logger) { connection in
                try await PostgresCampaignWork.takePlaces(
                    appID: appID, key: key, deviceIDs: devices.map(\.id), buckets: devices.map(\.bucket), caps: caps,
                    now: now, on: connection, logger: logger)
            }
        }
        return (key, granted)
    }

    public func releasePlaces(appID: Int64, key: Int64, deviceIDs: [Int64]) async throws {
        guard !deviceIDs.isEmpty else { return }
        try await client.query(
            """
            DELETE FROM frequency_sends
            WHERE app_id = \(appID) AND campaign_id = \(key) AND device_id = ANY(\(deviceIDs)::bigint[])
            """, logger: logger)
    }

    public func record(
        _ results: [DirectSendResult], invalidations: [DeviceInvalidation], appID: Int64,
        ledger: DirectSendRequest.Ledger, actor: String
    ) async throws -> Set<Int64> {
        let invalidated = try await DatabaseMetrics.measure("directSends.record") {
            // Without invalidations the rows go in one statement, atomic on its own: no
            // transaction's extra round trips (a journey makes one such record per user).
            let record: @Sendable (PostgresConnection) async throws -> Set<Int64> = { connection in
                let invalidated = try await DeviceInvalidator.apply(
                    invalidations, appID: appID, on: connection, logger: logger)
                guard !results.isEmpty else { return invalidated }
                // Arrays cannot hold NULL here: 0, "" and the nil UUID stand for "none".
                let tokens = results.map { ByteBuffer(bytes: $0.token.bytes) }
                let deviceIDs = results.map { $0.deviceID ?? 0 }
                let outcomes = results.map(\.outcome.kind.rawValue)
                let statuses = results.map { Int32(clamping: $0.outcome.status ?? 0) }
                let reasons = results.map { $0.outcome.reason ?? "" }
                let apnsIDs = results.map { $0.apnsID ?? PostgresCampaignWork.noUUID }
                let languages = results.map { $0.language?.value ?? "" }
                if case .journey(let key) = ledger {
                    try await connection.query(
                        """
                        INSERT INTO journey_deliveries (app_id, entry_id, journey_id, version, visit, step, token, device_id,
                                                        outcome, status, reason, apns_id, language)
                        SELECT \(appID), \(key.entryID), \(key.journeyID), \(key.version), \(key.visit), \(key.step), token,
                               NULLIF(device_id, 0), outcome, NULLIF(status, 0), NULLIF(reason, ''),
                               NULLIF(apns_id, \(PostgresCampaignWork.noUUID)), NULLIF(language, '')
                        FROM unnest(\(tokens)::bytea[], \(deviceIDs)::bigint[], \(outcomes)::text[], \(statuses)::integer[],
                                    \(reasons)::text[], \(apnsIDs)::uuid[], \(languages)::text[])
                            AS t(token, device_id, outcome, status, reason, apns_id, language)
                        """, logger: logger)
                    return invalidated
                }
                // The ledger's table and the column that groups its rows (request or campaign).
                let (table, group, cast, groupValue): (String, String, String, String)
                switch ledger {
                case .journey: return invalidated
                case .transactional(let requestID):
                    (table, group, cast, groupValue) = ("notifications", "request_id", "uuid", requestID.uuidString)
                case .campaignTest(let campaignID):
                    (table, group, cast, groupValue) = ("test_deliveries", "campaign_id", "bigint", String(campaignID))
                }
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: table) (app_id, \(unescaped: group), actor, token, device_id, outcome, status,
                                                   reason, apns_id, language)
                    SELECT \(appID), \(groupValue)::\(unescaped: cast), \(actor), token, NULLIF(device_id, 0), outcome,
                           NULLIF(status, 0), NULLIF(reason, ''), NULLIF(apns_id, \(PostgresCampaignWork.noUUID)),
                           NULLIF(language, '')
                    FROM unnest(\(tokens)::bytea[], \(deviceIDs)::bigint[], \(outcomes)::text[], \(statuses)::integer[],
                                \(reasons)::text[], \(apnsIDs)::uuid[], \(languages)::text[])
                        AS t(token, device_id, outcome, status, reason, apns_id, language)
                    """, logger: logger)
                return invalidated
            }
            if invalidations.isEmpty { return try await client.withConnection(record) }
            return try await client.withDomainTransaction(logger: logger, record)
        }
        DatabaseMetrics.invalidated(invalidated.count, source: "direct")
        return invalidated
    }
}
