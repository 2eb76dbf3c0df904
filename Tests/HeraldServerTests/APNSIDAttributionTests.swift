import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// Apns-ids that name their campaign and device (migration 0036): a campaign created now sends
/// enciphered ids under its app's key, one created before keeps its UUIDv5 ids, and an open of
/// either kind is attributed to the campaign and device that sent it; an id no campaign sent
/// is refused, whatever its form.
@Suite(.serialized) struct APNSIDAttributionTests {
    static let devices = 120

    static func registration(_ n: Int) throws -> DeviceRegistration {
        try DeviceRegistration(
            environment: .production, languages: [["en"], ["de"]][n % 2],
            authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
            timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
    }

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func opened(_ apnsID: UUID) -> String {
        #"{"type": "opened", "apnsID": "\#(apnsID.canonicalString)", "occurredAt": "\#(iso(Date()))"}"#
    }

    @Test(arguments: CitusTestDatabase.engines) func opensOfBothKindsOfApnsIDAreAttributed(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<Self.devices, Self.registration)
            let client = h.store.client
            // A campaign from before migration 0036: created, then its key taken away, as the
            // migration leaves campaigns that existed.
            let older = try await h.store.campaigns.create(
                CampaignDraft(
                    appID: h.app.id, name: "Older", templateName: "cart-reminder", localization: .server,
                    variables: ["storeName": "Acme"]), actor: "test")
            _ = try await client.query("UPDATE campaigns SET apns_id_key = NULL WHERE id = \(older.id)").collect()
            _ = try #require(try await h.store.campaigns.transition(id: older.id, event: .schedule, actor: "test"))
            let newer = try await h.scheduledCampaign()

            // The app has had its key since it was added; the newer campaign carries it.
            let appKey = try #require(
                try await client.query("SELECT apns_id_key FROM apps WHERE id = \(h.app.id)").collect().first?.decode(ByteBuffer?.self))
            let cipher = try #require(APNSIDCipher(key: Array(buffer: appKey)))
            #expect(try await h.campaign(older.id).apnsIDCipher == nil)
            #expect(newer.apnsIDCipher == cipher)

            let olderDone = try await h.runToEnd(older)
            let newerDone = try await h.runToEnd(newer)
            #expect(olderDone.state == .completed && newerDone.state == .completed)
            let olderRows = try await h.deliveries(older.id)
            let newerRows = try await h.deliveries(newer.id)
            #expect(olderRows.count == Self.devices && newerRows.count == Self.devices)
            for (device, row) in olderRows {
                #expect(row.apnsID == UUID.version5(namespace: older.publicID, name: String(device)))
            }
            for (device, row) in newerRows {
                let apnsID = try #require(row.apnsID)
                #expect(apnsID == cipher.apnsID(campaignID: newer.id, deviceID: device))
                let decoded = try #require(cipher.decode(apnsID))
                #expect(decoded.campaignID == newer.id && decoded.deviceID == device)
            }
            // What APNs was sent: version 8 ids for the newer campaign, all distinct.
            let sent = try h.received().map(\.apnsID)
            #expect(Set(sent).count == 2 * Self.devices)
            #expect(sent.filter { $0.count == 36 && Array($0)[14] == "8" }.count == Self.devices)

            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)/events"
                // Forged or foreign ids are refused, naming the event, and store nothing.
                let other = try #require(APNSIDCipher(key: Array(repeating: 5, count: 16)))
                let someDevice = try #require(newerRows.keys.min())
                let forged: [(String, UUID)] = [
                    ("a device the campaign did not reach", try #require(cipher.apnsID(campaignID: newer.id, deviceID: 9_999_999_999))),
                    ("a campaign that does not exist", try #require(cipher.apnsID(campaignID: 987_654_321, deviceID: someDevice))),
                    ("another key's id for a real pair", try #require(other.apnsID(campaignID: newer.id, deviceID: someDevice))),
                    ("a made-up version 8 UUID", try #require(UUID(uuidString: "0123abcd-4567-8abc-9def-0123456789ab"))),
                    ("the older campaign's scheme for the newer one", UUID.version5(namespace: newer.publicID, name: String(someDevice))),
                ]
                let good = Self.opened(try #require(newerRows[someDevice]?.apnsID))
                for (what, apnsID) in forged {
                    let reply = try await api.request(
                        .post, path, key: api.appKey, body: #"{"events": [\#(good), \#(Self.opened(apnsID))]}"#)
                    #expect(reply.status == .unprocessableContent, "\(what): \(reply.body)")
                    #expect(reply.json["field"] as? String == "events[1].apnsID", "\(what): \(reply.body)")
                }
                #expect(try await client.query("SELECT count(*) FROM events").collect().first?.decode(Int64.self) == 0)

                // One batch with opens of both campaigns, interleaved, and one reported twice.
                let picked = Array(olderRows.keys.sorted().prefix(15)) + Array(newerRows.keys.sorted().suffix(15))
                var events = [String]()
                var expected = [UUID: (Int64, Int64)]()
                for (index, device) in picked.enumerated() {
                    let (campaign, rows) = index < 15 ? (older.id, olderRows) : (newer.id, newerRows)
                    let apnsID = try #require(rows[device]?.apnsID)
                    expected[apnsID] = (campaign, device)
                    events.insert(Self.opened(apnsID), at: index % 2 == 0 ? events.count : 0)
                }
                events.append(events[0])
                let reply = try await api.request(.post, path, key: api.appKey, body: #"{"events": [\#(events.joined(separator: ","))]}"#)
                #expect(reply.status == .ok, "\(reply.body)")
                #expect(reply.json["stored"] as? Int == 30 && reply.json["attributed"] as? Int == 30, "\(reply.body)")
                let stored = try await client.query(
                    "SELECT apns_id, campaign_id, device_id FROM events WHERE app_id = \(h.app.id) AND kind = 'opened'"
                ).collect()
                #expect(stored.count == 30)
                for row in stored {
                    let (apnsID, campaign, device) = try row.decode((UUID, Int64?, Int64?).self)
                    let want = try #require(expected[apnsID])
                    #expect(campaign == want.0 && device == want.1)
                }
            }
        }
    }

    /// The hash index serves the older apns-ids and holds none of the new: its condition
    /// leaves version 8 out, and the older opens' query repeats it so the planner may use it.
    @Test func theHashIndexHoldsOnlyOlderApnsIDs() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<Self.devices, Self.registration)
            let campaign = try await h.runToEnd(try await h.scheduledCampaign())
            let client = h.store.client
            let rows = try await h.deliveries(campaign.id)
            let some = try #require(rows.values.first?.apnsID)
            let plan = try await client.withTransaction(logger: h.logs.logger()) { connection in
                _ = try await connection.query("SET LOCAL enable_seqscan = off", logger: h.logs.logger()).collect()
                return try await connection.query(
                    """
                    EXPLAIN SELECT campaign_id FROM deliveries
                    WHERE app_id = \(h.app.id) AND apns_id = ANY(\([some])::uuid[]) AND substr(apns_id::text, 15, 1) <> '8'
                    """, logger: h.logs.logger()
                ).collect().map { try $0.decode(String.self) }.joined(separator: "\n")
            }
            #expect(plan.contains("apns_id"), "\(plan)")
            #expect(plan.range(of: "apns_id[a-z_]*idx", options: .regularExpression) != nil, "\(plan)")
            // Every partition's hash index leaves version 8 out.
            let definitions = try await client.query(
                """
                SELECT indexdef FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename LIKE 'deliveries%' AND indexdef LIKE '%USING hash%'
                """
            ).collect().map { try $0.decode(String.self) }
            #expect(!definitions.isEmpty)
            #expect(definitions.allSatisfy { $0.contains("<> '8'::text") }, "\(definitions)")
        }
    }
}
