import APNSCore
import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// Admins run Herald without SQL: apps, their signing keys and API keys over the API, and the
/// audit log to read back what was done.
@Suite struct AdminAPITests {
    static func json(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    static func count(_ h: EngineHarness, _ sql: String) async throws -> Int {
        let rows = try await h.store.client.query(PostgresQuery(unsafeSQL: sql)).collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    @Test func adminsAddAppsWithTheirFirstKeyAndBadInputChangesNothing() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let pem = TestSigningKey.pem()
                let good = """
                    {"bundleID": "com.example.new", "teamID": "TEAM123456", "defaultEnvironment": "sandbox",
                     "credential": {"keyID": "NEWKEY1234", "privateKey": \(Self.json(pem))}}
                    """
                let before = try await Self.count(h, "SELECT count(*) FROM apps")
                let bad: [(String, String)] = [
                    (#"{"bundleID": "com.example.new", "teamID": "TEAM123456"}"#, "credential"),
                    (good.replacingOccurrences(of: "NEWKEY1234", with: "newkey"), "credential.keyID"),
                    (good.replacingOccurrences(of: "TEAM123456", with: "TEAM"), "teamID"),
                    (good.replacingOccurrences(of: "com.example.new", with: "com example"), "bundleID"),
                    (good.replacingOccurrences(of: "com.example.new", with: EngineHarness.bundleID), "bundleID"),
                    (good.replacingOccurrences(of: "\"sandbox\"", with: "\"staging\""), "defaultEnvironment"),
                    (
                        good.replacingOccurrences(
                            of: Self.json(pem), with: Self.json("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")),
                        "credential.privateKey"
                    ),
                    (
                        good.replacingOccurrences(of: Self.json(pem), with: Self.json(P384.Signing.PrivateKey().pemRepresentation)),
                        "credential.privateKey"
                    ),
                    (good.replacingOccurrences(of: Self.json(pem), with: "42"), "credential.privateKey"),
                    (good.replacingOccurrences(of: "\"sandbox\"", with: "\"sandbox\", \"apnsEndpoint\": \"http://apns.example\""), "apnsEndpoint"),
                    (good.replacingOccurrences(of: "\"sandbox\"", with: "\"sandbox\", \"apnsCA\": \"not a certificate\""), "apnsCA"),
                    (good.replacingOccurrences(of: "\"sandbox\"", with: "\"sandbox\", \"signingKey\": \"x\""), "signingKey"),
                    (good.replacingOccurrences(of: "\"keyID\"", with: "\"kid\": 1, \"keyID\""), "credential.kid"),
                ]
                for (body, field) in bad {
                    let reply = try await api.request(.post, "/v1/apps", key: api.adminKey, body: body)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(field): \(reply.body)")
                    #expect(!reply.body.contains("PRIVATE KEY") && !reply.body.contains("AAAA"), "\(reply.body)")
                }
                #expect(try await api.request(.post, "/v1/apps", key: api.marketingKey, body: good).status == .forbidden)
                #expect(try await Self.count(h, "SELECT count(*) FROM apps") == before)
                #expect(try await Self.count(h, "SELECT count(*) FROM app_credentials") == 1)

                let created = try await api.request(.post, "/v1/apps", key: api.adminKey, body: good)
                #expect(created.status == .created, "\(created.body)")
                #expect(created.json["keyID"] as? String == "NEWKEY1234" && created.json["defaultEnvironment"] as? String == "sandbox")
                #expect(created.json["disabled"] as? Bool == false && !created.body.contains("PRIVATE"))

                let listed = try await api.request(.get, "/v1/apps", key: api.marketingKey)
                #expect(
                    (listed.json["apps"] as? [[String: Any]])?.compactMap { $0["bundleID"] as? String }
                        == ["com.example.herald", "com.example.new"])
                #expect(try await api.request(.get, "/v1/apps", key: api.appKey).status == .forbidden)
                #expect(try await api.request(.get, "/v1/apps?x=1", key: api.adminKey).status == .unprocessableContent)
            }
        }
    }

    @Test func aDisabledAppSendsNothingUntilEnabledAndItsRouteChangesAreAudited() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<3, NotificationAPITests.german)
            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)"
                let send = #"{"tokens": ["\#(EngineHarness.token(0).hex)"], "payload": {"aps": {"alert": "hi"}}}"#
                for (body, field) in [
                    (#"{"disabled": "yes"}"#, "disabled"), (#"{"defaultEnvironment": "dev"}"#, "defaultEnvironment"),
                    (#"{"apnsEndpoint": "https://host/path"}"#, "apnsEndpoint"), (#"{"apnsCA": 5}"#, "apnsCA"),
                ] {
                    let reply = try await api.request(.patch, path, key: api.adminKey, body: body)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(reply.body)")
                }
                #expect(try await api.request(.patch, path, key: api.adminKey, body: "{}").status == .badRequest)

                let disabled = try await api.request(.patch, path, key: api.adminKey, body: #"{"disabled": true}"#)
                #expect(disabled.status == .ok && disabled.json["disabled"] as? Bool == true && disabled.json["disabledAt"] != nil)
                let refused = try await api.request(.post, "\(path)/notifications", key: api.appKey, body: send)
                #expect(refused.status == .conflict && refused.problemSlug == "app-disabled", "\(refused.body)")

                let created = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{"app": "\#(EngineHarness.bundleID)", "name": "Off", "templateName": "welcome"}"#)
                let id = try #require(created.json["id"] as? String)
                let schedule = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(schedule.status == .conflict && schedule.body.contains("disabled"), "\(schedule.body)")

                let enabled = try await api.request(.patch, path, key: api.adminKey, body: #"{"disabled": false, "defaultEnvironment": "sandbox"}"#)
                #expect(enabled.json["disabled"] as? Bool == false && enabled.json["defaultEnvironment"] as? String == "sandbox")
                let sent = try await api.request(.post, "\(path)/notifications", key: api.appKey, body: send)
                #expect(sent.status == .ok && (sent.json["summary"] as? [String: Int]) == ["accepted": 1], "\(sent.body)")

                let audit = try await api.request(.get, "/v1/admin/audit?action=app.update&app=\(EngineHarness.bundleID)", key: api.adminKey)
                let entries = try #require(audit.json["entries"] as? [[String: Any]])
                #expect(entries.count == 2)
                #expect((entries.first?["details"] as? [String: Any])?["disabled"] as? Bool == false)
                #expect((entries.first?["actor"] as? String)?.hasPrefix("hk_") == true)
                #expect(try await api.request(.get, "/v1/admin/audit", key: api.marketingKey).status == .forbidden)
                for query in ["since=yesterday", "limit=0", "cursor=-1", "actor=", "bogus=1", "app=com.example.nope"] {
                    let reply = try await api.request(.get, "/v1/admin/audit?\(query)", key: api.adminKey)
                    #expect(reply.status.code >= 400 && reply.status.code < 500, "\(query): \(reply.body)")
                }
            }
        }
    }

    @Test func credentialsAreAddedActivatedAndRetiredWithoutShowingASecret() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)/credentials"
                let pem = TestSigningKey.pem()
                let listed = try await api.request(.get, path, key: api.adminKey)
                let first = try #require((listed.json["credentials"] as? [[String: Any]])?.first)
                #expect(first["state"] as? String == "active" && first["keyID"] as? String == EngineHarness.keyID)
                let firstID = try #require(first["id"] as? String)

                for (body, field) in [
                    (#"{"keyID": "KEY2345678"}"#, "privateKey"),
                    (#"{"keyID": "KEY2345678", "privateKey": "nope"}"#, "privateKey"),
                    (#"{"keyID": "short", "privateKey": \#(Self.json(pem))}"#, "keyID"),
                    (#"{"kind": "certificate", "keyID": "KEY2345678", "privateKey": \#(Self.json(pem))}"#, "keyID"),
                    (#"{"kind": "password", "keyID": "KEY2345678", "privateKey": \#(Self.json(pem))}"#, "kind"),
                    (#"{"keyID": "KEY2345678", "privateKey": \#(Self.json(pem)), "activate": "now"}"#, "activate"),
                    (#"{"keyID": "KEY2345678", "privateKey": \#(Self.json(String(repeating: "A", count: 9000)))}"#, "privateKey"),
                ] {
                    let reply = try await api.request(.post, path, key: api.adminKey, body: body)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(reply.body)")
                }
                #expect(try await api.request(.post, path, key: api.marketingKey, body: "{}").status == .forbidden)
                #expect(try await api.request(.get, path, key: api.appKey).status == .forbidden)

                let added = try await api.request(
                    .post, path, key: api.adminKey, body: #"{"keyID": "KEY2345678", "privateKey": \#(Self.json(pem))}"#)
                #expect(added.status == .created && added.json["state"] as? String == "standby" && !added.body.contains("PRIVATE"))
                #expect((added.json["fingerprint"] as? String) == ProviderTokenSigner.publicKeyFingerprint(pemRepresentation: pem))
                let secondID = try #require(added.json["id"] as? String)

                let retireActive = try await api.request(.delete, "\(path)/\(firstID)", key: api.adminKey)
                #expect(retireActive.status == .conflict && retireActive.problemSlug == "credential-state")
                let activated = try await api.request(.post, "\(path)/\(secondID)/activate", key: api.adminKey)
                #expect(activated.status == .ok && activated.json["state"] as? String == "active")
                #expect(try await api.request(.get, "/v1/apps/\(EngineHarness.bundleID)", key: api.adminKey).json["keyID"] as? String == "KEY2345678")
                let retired = try await api.request(.delete, "\(path)/\(firstID)", key: api.adminKey)
                #expect(retired.status == .ok && retired.json["state"] as? String == "retired")
                let again = try await api.request(.post, "\(path)/\(firstID)/activate", key: api.adminKey)
                #expect(again.status == .conflict)
                #expect(try await api.request(.post, "\(path)/999999/activate", key: api.adminKey).status == .notFound)
                #expect(try await api.request(.delete, "\(path)/abc", key: api.adminKey).status == .notFound)
                #expect(try await Self.count(h, "SELECT count(*) FROM app_credentials WHERE secret_sealed IS NOT NULL") == 1)
                let log = try await api.request(.get, "/v1/admin/audit?action=credential.activate", key: api.adminKey)
                #expect((log.json["entries"] as? [[String: Any]])?.count == 1)
            }
        }
    }

    @Test func apiKeysAreMadeScopedAndRevokedOverTheAPI() async throws {
        try await EngineHarness.with { h in
            let other = try await h.store.apps.add(
                try NewApp(
                    bundleID: "com.example.other", teamID: "TEAM123456", keyID: "OTHERKEY12", signingKeyPEM: TestSigningKey.pem(),
                    defaultEnvironment: .production),
                actor: "test")
            _ = try await h.store.campaigns.create(
                CampaignDraft(appID: other.id, name: "Other app's", templateName: "welcome"), actor: "test")
            try await h.withAPI { api in
                let bad: [(String, String)] = [
                    (#"{"role": "root"}"#, "role"),
                    (#"{"role": "app"}"#, "app"),
                    (#"{"role": "admin", "app": "\#(EngineHarness.bundleID)"}"#, "app"),
                    (#"{"role": "app", "app": "com.example.nope"}"#, "app"),
                    (#"{"role": "marketing", "apps": []}"#, "apps"),
                    (#"{"role": "marketing", "apps": ["com.example.nope"]}"#, "apps[0]"),
                    (#"{"role": "marketing", "apps": [5]}"#, "apps[0]"),
                    (#"{"role": "marketing", "apps": "com.example.other"}"#, "apps"),
                    (#"{"role": "admin", "expiresAt": "2020-01-01T00:00:00Z"}"#, "expiresAt"),
                    (#"{"role": "admin", "expiresAt": "2999-01-01T00:00:00Z"}"#, "expiresAt"),
                    (#"{"role": "admin", "expiresAt": "soon"}"#, "expiresAt"),
                    (#"{"role": "admin", "name": "a\u0000b"}"#, "name"),
                    (#"{"role": "admin", "secret": "mine"}"#, "secret"),
                ]
                let keysBefore = try await Self.count(h, "SELECT count(*) FROM api_keys")
                for (body, field) in bad {
                    let reply = try await api.request(.post, "/v1/admin/keys", key: api.adminKey, body: body)
                    #expect(reply.status.code >= 400 && reply.status.code < 500 && reply.json["field"] as? String == field, "\(body): \(reply.body)")
                }
                #expect(try await Self.count(h, "SELECT count(*) FROM api_keys") == keysBefore)
                #expect(try await api.request(.post, "/v1/admin/keys", key: api.marketingKey, body: #"{"role": "admin"}"#).status == .forbidden)

                let made = try await api.request(
                    .post, "/v1/admin/keys", key: api.adminKey,
                    body: #"{"role": "marketing", "apps": ["\#(EngineHarness.bundleID)"], "name": "store team", "expiresAt": "2030-01-01T00:00:00Z"}"#
                )
                #expect(made.status == .created, "\(made.body)")
                let scoped = try #require(made.json["key"] as? String)
                let keyID = try #require(made.json["id"] as? String)
                #expect(made.json["apps"] as? [String] == [EngineHarness.bundleID] && made.json["state"] as? String == "active")

                let list = try await api.request(.get, "/v1/admin/keys", key: api.adminKey)
                #expect(!list.body.contains(scoped) && list.body.contains(String(scoped.prefix(11))))
                #expect((list.json["keys"] as? [[String: Any]])?.first?["name"] as? String == "store team")

                // The scoped key sees and works on its own app only.
                let apps = try await api.request(.get, "/v1/apps", key: scoped)
                #expect((apps.json["apps"] as? [[String: Any]])?.compactMap { $0["bundleID"] as? String } == [EngineHarness.bundleID])
                let campaigns = try await api.request(.get, "/v1/campaigns", key: scoped)
                #expect((campaigns.json["campaigns"] as? [[String: Any]])?.isEmpty == true, "\(campaigns.body)")
                let all = try await api.request(.get, "/v1/campaigns", key: api.marketingKey)
                let othersID = try #require((all.json["campaigns"] as? [[String: Any]])?.first?["id"] as? String)
                #expect(try await api.request(.get, "/v1/campaigns/\(othersID)", key: scoped).status == .notFound)
                #expect(try await api.request(.get, "/v1/campaigns?app=com.example.other", key: scoped).status == .forbidden)
                let create = try await api.request(
                    .post, "/v1/campaigns", key: scoped, body: #"{"app": "com.example.other", "name": "x", "templateName": "welcome"}"#)
                #expect(create.status == .forbidden)
                #expect(try await api.request(.get, "/v1/apps/com.example.other/devices", key: scoped).status == .forbidden)
                #expect(try await api.request(.get, "/v1/apps/\(EngineHarness.bundleID)/devices", key: scoped).status == .ok)
                let mine = try await api.request(
                    .post, "/v1/campaigns", key: scoped, body: #"{"app": "\#(EngineHarness.bundleID)", "name": "x", "templateName": "welcome"}"#)
                #expect(mine.status == .created, "\(mine.body)")

                #expect(try await api.request(.delete, "/v1/admin/keys/\(keyID)", key: api.adminKey).status == .noContent)
                #expect(try await api.request(.get, "/v1/apps", key: scoped).status == .unauthorized)
                #expect(try await api.request(.delete, "/v1/admin/keys/\(keyID)", key: api.adminKey).status == .notFound)
                let revoked = try await api.request(.get, "/v1/admin/keys", key: api.adminKey)
                #expect((revoked.json["keys"] as? [[String: Any]])?.first?["state"] as? String == "revoked")
            }
        }
    }
}
