import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresEventRepository {
    /// Each open's campaign, message, device and language, from the ledger row that sent its
    /// apns-id; an apns-id no campaign of the app sent is refused, naming the event.
    func attributeOpens(appID: Int64, events: [AppEvent]) async throws -> [Int: Attribution] {
        var positions = [UUID: [Int]]()
        for (index, event) in events.enumerated() {
            if case .opened(let apnsID) = event.kind { positions[apnsID, default: []].append(index) }
        }
        guard !positions.isEmpty else { return [:] }
        var found = [Int: Attribution]()
        func attribute(_ apnsID: UUID, campaignID: Int64, variant: Int16?, deviceID: Int64, language: String?) {
            for index in positions[apnsID] ?? [] {
                found[index] = Attribution(
                    campaignID: campaignID, variant: variant.map(Int.init), deviceID: deviceID, language: language)
            }
        }
        let enciphered = positions.keys.filter(APNSIDCipher.isEnciphered)
        if !enciphered.isEmpty {
            for row in try await openedByKey(appID: appID, apnsIDs: enciphered) {
                attribute(row.apnsID, campaignID: row.campaignID, variant: row.variant, deviceID: row.deviceID, language: row.language)
            }
        }
        let older = positions.keys.filter { !APNSIDCipher.isEnciphered($0) }
        if !older.isEmpty {
            // Sent before apns-ids were enciphered (migration 0036): the hash index finds them;
            // its condition is repeated so the planner can use it.
            let rows = try await client.query(
                """
                SELECT apns_id, campaign_id, variant, device_id, language FROM deliveries
                WHERE app_id = \(appID) AND apns_id = ANY(\(older)::uuid[]) AND substr(apns_id::text, 15, 1) <> '8'
                """, logger: logger)
            for try await (apnsID, campaignID, variant, deviceID, language) in rows.decode(
                (UUID, Int64, Int16?, Int64, String?).self)
            {
                attribute(apnsID, campaignID: campaignID, variant: variant, deviceID: deviceID, language: language)
            }
        }
        let unknown = positions.filter { $0.value.contains { found[$0] == nil } }.map(\.key)
        if !unknown.isEmpty {
            // Not a campaign's: a journey's send, or no one's.
            let journeyRows = try await client.query(
                """
                SELECT apns_id, device_id, language FROM journey_deliveries
                WHERE app_id = \(appID) AND apns_id = ANY(\(unknown)::uuid[]) AND device_id IS NOT NULL
                """, logger: logger)
            for try await (apnsID, deviceID, language) in journeyRows.decode((UUID, Int64, String?).self) {
                for index in positions[apnsID] ?? [] {
                    found[index] = Attribution(campaignID: nil, variant: nil, deviceID: deviceID, language: language)
                }
            }
        }
        for (index, event) in events.enumerated() where found[index] == nil {
            if case .opened = event.kind {
                throw ValidationError(field: "events[\(index)].apnsID", reason: "no campaign or journey of this app sent this apns-id")
            }
        }
        return found
    }

    /// The ledger rows of enciphered apns-ids: each deciphered under the app's key to its
    /// campaign and device, and the rows read by the ledger's key. A row counts only when it
    /// holds the very apns-id: one the app's key did not make deciphers to IDs no row has, or
    /// to a row with another apns-id.
    private func openedByKey(
        appID: Int64, apnsIDs: [UUID]
    ) async throws -> [(apnsID: UUID, campaignID: Int64, variant: Int16?, deviceID: Int64, language: String?)] {
        let keys = try await client.query("SELECT apns_id_key FROM apps WHERE id = \(appID)", logger: logger).collect()
        guard let key = try keys.first?.decode(ByteBuffer?.self), let cipher = APNSIDCipher(key: Array(buffer: key)) else {
            return []
        }
        let pairs = apnsIDs.compactMap(cipher.decode)
        guard !pairs.isEmpty else { return [] }
        let wanted = Set(apnsIDs)
        // The pairs joined by the ledger's key; the campaigns named again so that the planner
        // reads only their partitions.
        let rows = try await client.query(
            """
            SELECT d.apns_id, d.campaign_id, d.variant, d.device_id, d.language
            FROM unnest(\(pairs.map(\.campaignID))::bigint[], \(pairs.map(\.deviceID))::bigint[]) AS t(campaign_id, device_id)
            JOIN deliveries d ON d.app_id = \(appID) AND d.campaign_id = t.campaign_id AND d.device_id = t.device_id
            WHERE d.campaign_id = ANY(\(Array(Set(pairs.map(\.campaignID))))::bigint[]) AND d.apns_id IS NOT NULL
            """, logger: logger)
        var found = [(apnsID: UUID, campaignID: Int64, variant: Int16?, deviceID: Int64, language: String?)]()
        for try await (apnsID, campaignID, variant, deviceID, language) in rows.decode(
            (UUID, Int64, Int16?, Int64, String?).self) where wanted.contains(apnsID)
        {
            found.append((apnsID, campaignID, variant, deviceID, language))
        }
        return found
    }
}
