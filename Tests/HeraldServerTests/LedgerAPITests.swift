import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Synchronization
import Testing

@testable import HeraldAPI
@testable import HeraldServer

/// The ledgers read back (the transactional ledger, a token's history) and a user's data
/// requests (export, erase), through the real application, PostgreSQL and the simulator.
@Suite struct LedgerAPITests {
    static let app = EngineHarness.bundleID
    static var notificationsPath: String { "/v1/apps/\(app)/notifications" }

    static func send(_ api: EngineAPI, tokens: [Int]) async throws -> String {
        let list = tokens.map { "\"\(EngineHarness.token($0).hex)\"" }.joined(separator: ",")
        let reply = try await api.request(
            .post, notificationsPath, key: api.appKey, body: #"{"tokens": [\#(list)], "payload": {"aps": {"alert": "Hi"}}}"#)
        #expect(reply.status == .ok, "\(reply.body)")
        return try #require(reply.json["requestID"] as? String)
    }

    @Test(arguments: CitusTestDatabase.engines) func theTransactionalLedgerReadsByUserTokenRequestAndPage(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<4, NotificationAPITests.german)
            try await h.withAPI { api in
                let first = try await Self.send(api, tokens: [0, 1, 2])
                let second = try await Self.send(api, tokens: [0])
                let all = try await api.request(.get, Self.notificationsPath, key: api.appKey)
                let rows = try #require(all.json["notifications"] as? [[String: Any]])
                #expect(rows.count == 4 && rows.first?["requestID"] as? String == second)
                #expect(rows.allSatisfy { ($0["tokenSuffix"] as? String)?.count == 8 && $0["outcome"] as? String == "accepted" })
                #expect(!all.body.contains(EngineHarness.token(0).hex))

                // user-1 has devices 0 and 1 (NotificationAPITests.german).
                let user = try await api.request(.get, "\(Self.notificationsPath)?userID=user-1", key: api.marketingKey)
                #expect((user.json["notifications"] as? [[String: Any]])?.count == 3, "\(user.body)")
                let token = try await api.request(.get, "\(Self.notificationsPath)?token=\(EngineHarness.token(0).hex)", key: api.adminKey)
                #expect((token.json["notifications"] as? [[String: Any]])?.count == 2)
                let request = try await api.request(.get, "\(Self.notificationsPath)?requestID=\(first)", key: api.appKey)
                #expect((request.json["notifications"] as? [[String: Any]])?.count == 3)
                let future = try await api.request(.get, "\(Self.notificationsPath)?since=2999-01-01T00:00:00Z", key: api.appKey)
                #expect((future.json["notifications"] as? [[String: Any]])?.isEmpty == true)

                var seen = [String]()
                var cursor: String?
                repeat {
                    let page = try await api.request(
                        .get, "\(Self.notificationsPath)?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), key: api.appKey)
                    seen += (page.json["notifications"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    cursor = page.json["nextCursor"] as? String
                } while cursor != nil
                #expect(seen.count == 4 && Set(seen).count == 4)

                for query in [
                    "token=xyz", "requestID=nope", "since=today", "limit=0", "limit=1001", "cursor=-2", "userID=", "userID=a%00b", "bogus=1",
                ] {
                    let reply = try await api.request(.get, "\(Self.notificationsPath)?\(query)", key: api.appKey)
                    #expect(reply.status == .unprocessableContent, "\(query): \(reply.body)")
                }
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aTokensHistoryShowsItsRegistrationNotificationsAndCampaigns(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<4, NotificationAPITests.german)
            let campaign = try await h.runToEnd(try await h.scheduledCampaign(template: "welcome", variables: ["appName": "Acme"]))
            try await h.withAPI { api in
                _ = try await Self.send(api, tokens: [0, 99])
                let path = "/v1/apps/\(Self.app)/devices/\(EngineHarness.token(0).hex)/history"
                let history = try await api.request(.get, path, key: api.marketingKey)
                #expect(history.status == .ok, "\(history.body)")
                let device = try #require(history.json["device"] as? [String: Any])
                #expect(device["userID"] as? String == "user-1" && device["valid"] as? Bool == true)
                #expect((history.json["notifications"] as? [[String: Any]])?.count == 1)
                let campaigns = try #require(history.json["campaigns"] as? [[String: Any]])
                #expect(campaigns.count == 1 && campaigns.first?["campaignID"] as? String == campaign.publicID.canonicalString)
                #expect(!history.body.contains(EngineHarness.token(0).hex))

                // A token sent to but never registered has a history without a device.
                let unregistered = try await api.request(
                    .get, "/v1/apps/\(Self.app)/devices/\(EngineHarness.token(99).hex)/history", key: api.appKey)
                #expect(unregistered.status == .ok && unregistered.json["device"] == nil)
                let unknown = try await api.request(
                    .get, "/v1/apps/\(Self.app)/devices/\(EngineHarness.token(500).hex)/history", key: api.appKey)
                #expect(unknown.status == .notFound)
                #expect(try await api.request(.get, "/v1/apps/\(Self.app)/devices/zz/history", key: api.appKey).status == .badRequest)
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aUsersDataIsExportedThenErasedAndTheLedgersKeepNoTrace(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<4, NotificationAPITests.german)
            _ = try await h.runToEnd(try await h.scheduledCampaign(template: "welcome", variables: ["appName": "Acme"]))
            try await h.withAPI { api in
                _ = try await Self.send(api, tokens: [0, 1, 2])
                let now = ISO8601DateFormatter().string(from: Date())
                let events = try await api.request(
                    .post, "/v1/apps/\(Self.app)/events", key: api.appKey,
                    body: #"{"events": [{"type": "converted", "name": "purchase", "value": 9.5, "userID": "user-1", "occurredAt": "\#(now)"}]}"#)
                #expect(events.status.code < 300, "\(events.body)")

                let path = "/v1/apps/\(Self.app)/users/user-1"
                #expect(try await api.request(.get, "\(path)/export", key: api.marketingKey).status == .forbidden)
                let export = try await api.request(.get, "\(path)/export", key: api.appKey)
                #expect(export.status == .ok, "\(export.body)")
                #expect((export.json["devices"] as? [[String: Any]])?.count == 2)
                #expect((export.json["notifications"] as? [[String: Any]])?.count == 2)
                #expect((export.json["campaigns"] as? [[String: Any]])?.count == 2)
                #expect((export.json["events"] as? [[String: Any]])?.first?["name"] as? String == "purchase")
                #expect(export.json["truncated"] as? Bool == false)
                #expect(!export.body.contains(EngineHarness.token(0).hex) && !export.body.contains(EngineHarness.token(1).hex))

                let unknown = try await api.request(.delete, "/v1/apps/\(Self.app)/users/nobody", key: api.adminKey)
                #expect(unknown.status == .notFound)
                #expect(try await api.request(.get, "/v1/apps/\(Self.app)/users/nobody/export", key: api.adminKey).status == .notFound)
                #expect(try await api.request(.delete, path, key: api.marketingKey).status == .forbidden)

                let erased = try await api.request(.delete, path, key: api.adminKey)
                #expect(erased.status == .ok, "\(erased.body)")
                #expect(erased.json["devicesDeleted"] as? Int == 2 && erased.json["notificationsAnonymised"] as? Int == 2)
                #expect(erased.json["eventsAnonymised"] as? Int == 1)
                #expect(try await api.request(.get, "\(path)/export", key: api.appKey).status == .notFound)

                // No ledger row names the erased tokens; the other user's rows are untouched.
                let tokens = [EngineHarness.token(0), EngineHarness.token(1)].map { ByteBuffer(bytes: $0.bytes) }
                let left = try await h.store.client.query(
                    "SELECT count(*) FROM notifications WHERE token = ANY (\(tokens)::bytea[])"
                ).collect()
                #expect(try left.first?.decode(Int64.self) == 0)
                let others = try await h.store.client.query(
                    "SELECT count(*) FROM notifications WHERE token = \(ByteBuffer(bytes: EngineHarness.token(2).bytes))"
                ).collect()
                #expect(try others.first?.decode(Int64.self) == 1)
                let userEvents = try await h.store.client.query("SELECT count(*) FROM events WHERE user_id = 'user-1'").collect()
                #expect(try userEvents.first?.decode(Int64.self) == 0)
                let audit = try await api.request(.get, "/v1/admin/audit?action=user.erase", key: api.adminKey)
                let entries = try #require(audit.json["entries"] as? [[String: Any]])
                #expect(entries.count == 1 && !audit.body.contains("user-1"))
                #expect(((entries.first?["details"] as? [String: Any])?["userIDSHA256"] as? String)?.count == 16)
            }
        }
    }

    /// A user shared by many devices (a placeholder such as `guest`) is exported whole, page by
    /// page: no list stops at a limit, nothing repeats.
    @Test(arguments: CitusTestDatabase.engines) func aUserWithManyDevicesIsExportedWholeAPageAtATime(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<1_203) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: n % 100 == 99 ? "someone" : "guest", attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let guests = 1_203 - 12
            _ = try await h.runToEnd(try await h.scheduledCampaign())
            try await h.withAPI { api in
                _ = try await Self.send(api, tokens: Array(0..<30))
                let now = ISO8601DateFormatter().string(from: Date())
                let events = (0..<25).map { #"{"type": "converted", "name": "buy-\#($0)", "userID": "guest", "occurredAt": "\#(now)"}"# }
                let stored = try await api.request(
                    .post, "/v1/apps/\(Self.app)/events", key: api.appKey, body: #"{"events": [\#(events.joined(separator: ","))]}"#)
                #expect(stored.status.code < 300, "\(stored.body)")

                let export = try await api.request(.get, "/v1/apps/\(Self.app)/users/guest/export", key: api.appKey)
                #expect(export.status == .ok)
                let devices = try #require(export.json["devices"] as? [[String: Any]])
                #expect(devices.count == guests && Set(devices.compactMap { $0["id"] as? Int }).count == guests)
                #expect((export.json["campaigns"] as? [[String: Any]])?.count == guests)
                #expect((export.json["notifications"] as? [[String: Any]])?.count == 30)
                #expect((export.json["events"] as? [[String: Any]])?.count == 25)
                #expect(export.json["truncated"] as? Bool == false)

                // The same document read seven rows at a time.
                let ledger = h.store.ledger
                let text = Mutex("")
                try await UserDataExportWriter(ledger: ledger, pageSize: 7).write(
                    appID: h.app.id, bundleID: Self.app, userID: "guest", now: Date(timeIntervalSince1970: 0)
                ) { piece in text.withLock { $0 += piece } }
                let small = try #require(try JSONSerialization.jsonObject(with: Data(text.withLock { $0 }.utf8)) as? [String: Any])
                for list in ["devices", "campaigns", "notifications", "events", "webhookMessages", "campaignAudiences"] {
                    let paged = try #require(small[list] as? [[String: Any]])
                    let whole = try #require(export.json[list] as? [[String: Any]])
                    #expect(paged.count == whole.count, "\(list)")
                    #expect(NSArray(array: paged).isEqual(to: whole), "\(list)")
                }
            }
        }
    }
}
