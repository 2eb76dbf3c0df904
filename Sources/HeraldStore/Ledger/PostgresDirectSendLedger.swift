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

    public func reservePlaces(
        appID: Int64, devices: [(id: Int64, bucket: Int)], caps: [FrequencyCap], now: Date
    )
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
        _ records: [DirectSendRecord], invalidations: [DeviceInvalidation], appID: Int64
    ) async throws
        -> Set<Int64>
    {
        let journeys = records.filter { if case .journey = $0.ledger { true } else { false } }
        let others = records.filter { if case .journey = $0.ledger { false } else { !$0.results.isEmpty } }
        let invalidated = try await DatabaseMetrics.measure("directSends.record") {
            let record: @Sendable (PostgresConnection) async throws -> Set<Int64> = { connection in
                let invalidated = try await DeviceInvalidator.apply(
                    invalidations, appID: appID, on: connection, logger: logger)
                try await Self.insertJourneyRows(journeys, appID: appID, on: connection, logger: logger)
                for record in others { try await Self.insertRows(record, appID: appID, on: connection, logger: logger) }
                return invalidated
            }
            // One statement is atomic on its own: no transaction's extra round trips (a
            // journey batch's sends are one such statement). Invalidations take several.
            let statements = (invalidations.isEmpty ? 0 : 2) + (journeys.isEmpty ? 0 : 1) + others.count
            if statements <= 1 { return try await client.withConnection(record) }
            return try await PostgresErrors.retryingDeadlocks { try await client.withDomainTransaction(logger: logger, record) }
        }
        DatabaseMetrics.invalidated(invalidated.count, source: "direct")
        return invalidated
    }

    /// The rows of journeys' sends, every visit of the batch in one INSERT. Arrays cannot hold
    /// NULL here: 0, "" and the nil UUID stand for "none".
    private static func insertJourneyRows(
        _ records: [DirectSendRecord], appID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var keys = [JourneySendKey]()
        var results = [DirectSendResult]()
        for record in records {
            guard case .journey(let key) = record.ledger else { continue }
            keys += Array(repeating: key, count: record.results.count)
            results += record.results
        }
        guard !results.isEmpty else { return }
        let rows = LedgerColumns(results)
        try await connection.query(
            """
            INSERT INTO journey_deliveries (app_id, entry_id, journey_id, version, visit, step, token, device_id,
                                            outcome, status, reason, apns_id, language)
            SELECT \(appID), entry_id, journey_id, version, visit, step, token,
                   NULLIF(device_id, 0), outcome, NULLIF(status, 0), NULLIF(reason, ''),
                   NULLIF(apns_id, \(PostgresCampaignWork.noUUID)), NULLIF(language, '')
            FROM unnest(\(keys.map(\.entryID))::bigint[], \(keys.map(\.journeyID))::bigint[],
                        \(keys.map { Int32($0.version) })::integer[], \(keys.map { Int32($0.visit) })::integer[],
                        \(keys.map(\.step))::text[], \(rows.tokens)::bytea[], \(rows.deviceIDs)::bigint[],
                        \(rows.outcomes)::text[], \(rows.statuses)::integer[], \(rows.reasons)::text[],
                        \(rows.apnsIDs)::uuid[], \(rows.languages)::text[], \(keys.map { $0.leaseOwner ?? "" })::text[])
                AS t(entry_id, journey_id, version, visit, step, token, device_id, outcome, status, reason, apns_id, language, owner)
            WHERE t.owner = '' OR EXISTS (SELECT 1 FROM journey_entries e WHERE e.id = t.entry_id AND e.lease_owner = t.owner)
            """, logger: logger)
    }

    /// A transactional request's rows, or a campaign's test sends.
    private static func insertRows(
        _ record: DirectSendRecord, appID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        // The ledger's table and the column that groups its rows (request or campaign).
        let (table, group, cast, groupValue): (String, String, String, String)
        switch record.ledger {
        case .journey: return
        case .transactional(let requestID):
            (table, group, cast, groupValue) = ("notifications", "request_id", "uuid", requestID.uuidString)
        case .campaignTest(let campaignID):
            (table, group, cast, groupValue) = ("test_deliveries", "campaign_id", "bigint", String(campaignID))
        }
        let rows = LedgerColumns(record.results)
        try await connection.query(
            """
            INSERT INTO \(unescaped: table) (app_id, \(unescaped: group), actor, token, device_id, outcome, status,
                                           reason, apns_id, language)
            SELECT \(appID), \(groupValue)::\(unescaped: cast), \(record.actor), token, NULLIF(device_id, 0), outcome,
                   NULLIF(status, 0), NULLIF(reason, ''), NULLIF(apns_id, \(PostgresCampaignWork.noUUID)),
                   NULLIF(language, '')
            FROM unnest(\(rows.tokens)::bytea[], \(rows.deviceIDs)::bigint[], \(rows.outcomes)::text[],
                        \(rows.statuses)::integer[], \(rows.reasons)::text[], \(rows.apnsIDs)::uuid[],
                        \(rows.languages)::text[])
                AS t(token, device_id, outcome, status, reason, apns_id, language)
            """, logger: logger)
    }
}

/// Direct sends' results as the ledger's columns, "none" as 0, "" or the nil UUID.
private struct LedgerColumns {
    let tokens: [ByteBuffer]
    let deviceIDs: [Int64]
    let outcomes: [String]
    let statuses: [Int32]
    let reasons: [String]
    let apnsIDs: [UUID]
    let languages: [String]

    init(_ results: [DirectSendResult]) {
        tokens = results.map { ByteBuffer(bytes: $0.token.bytes) }
        deviceIDs = results.map { $0.deviceID ?? 0 }
        outcomes = results.map(\.outcome.kind.rawValue)
        statuses = results.map { Int32(clamping: $0.outcome.status ?? 0) }
        reasons = results.map { $0.outcome.reason ?? "" }
        apnsIDs = results.map { $0.apnsID ?? PostgresCampaignWork.noUUID }
        languages = results.map { $0.language?.value ?? "" }
    }
}
