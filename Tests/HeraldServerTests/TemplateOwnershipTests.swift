import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Templates that belong to an app: scoped marketing keys see and write their apps' templates
/// and the shared ones; campaigns and sends use only their own app's templates or shared ones.
@Suite struct TemplateOwnershipTests {
    /// A shipped template renamed, as a PUT body.
    static func body(_ name: String) throws -> String {
        var document = try TemplateAPITests.shipped("flash-sale")
        document.name = name
        return TemplateAPITests.body(document)
    }

    @Test func scopedKeysSeeTheirAppsTemplatesAndCampaignsUseOnlyTheirOwn() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<2, NotificationAPITests.german)
            let other = try await h.store.apps.add(
                try NewApp(
                    bundleID: "com.example.other", teamID: "TEAM123456", keyID: "OTHERKEY12", signingKeyPEM: TestSigningKey.pem(),
                    defaultEnvironment: .production),
                actor: "test")
            let scoped = try await h.store.keys.create(
                try NewAPIKey(role: .marketing, appScope: [h.app.id]), actor: "test"
            ).1.value
            try await h.withAPI { api in
                let mine = EngineHarness.bundleID
                #expect(
                    try await api.request(.put, "/v1/templates/promo-a?app=\(mine)", key: scoped, body: try Self.body("promo-a")).status == .created)
                #expect(
                    try await api.request(.put, "/v1/templates/promo-b?app=\(other.bundleID)", key: scoped, body: try Self.body("promo-b")).status
                        == .forbidden)
                #expect(try await api.request(.put, "/v1/templates/promo-c", key: scoped, body: try Self.body("promo-c")).status == .forbidden)
                let otherTemplate = try await api.request(
                    .put, "/v1/templates/promo-b?app=\(other.bundleID)", key: api.marketingKey, body: try Self.body("promo-b"))
                #expect(otherTemplate.status == .created, "\(otherTemplate.body)")
                // A template's app does not change with a new version.
                for (path, field) in [("promo-a?app=\(other.bundleID)", "app"), ("promo-a", "app"), ("welcome?app=\(mine)", "app")] {
                    let name = String(path.prefix { $0 != "?" })
                    let reply = try await api.request(.put, "/v1/templates/\(path)", key: api.marketingKey, body: try Self.body(name))
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(path): \(reply.body)")
                }
                #expect(
                    try await api.request(.put, "/v1/templates/promo-a?app=com.nope", key: api.marketingKey, body: try Self.body("promo-a")).status
                        == .notFound)
                #expect(
                    try await api.request(.put, "/v1/templates/promo-a?bogus=1", key: api.marketingKey, body: try Self.body("promo-a")).status
                        == .unprocessableContent)

                let listed = try await api.request(.get, "/v1/templates", key: scoped)
                let names = (listed.json["templates"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                #expect(names.contains("promo-a") && names.contains("welcome") && !names.contains("promo-b"), "\(names)")
                let all = try await api.request(.get, "/v1/templates", key: api.marketingKey)
                let owners = (all.json["templates"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) {
                    $0[$1["name"] as? String ?? ""] = $1["app"] as? String ?? "shared"
                }
                #expect(owners["promo-a"] == mine && owners["promo-b"] == other.bundleID && owners["welcome"] == "shared")
                #expect(try await api.request(.get, "/v1/templates/promo-b", key: scoped).status == .notFound)
                #expect(try await api.request(.get, "/v1/templates/promo-b/versions/1", key: scoped).status == .notFound)
                #expect(try await api.request(.post, "/v1/templates/promo-b/preview", key: scoped, body: "{}").status == .notFound)
                #expect(try await api.request(.get, "/v1/templates/promo-a", key: scoped).json["app"] as? String == mine)

                // Another app's template is not this app's: not for a campaign, a variant or a send.
                let campaign = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{"app": "\#(mine)", "name": "x", "templateName": "promo-b"}"#)
                #expect(campaign.status == .unprocessableContent && campaign.json["field"] as? String == "templateName", "\(campaign.body)")
                let variant = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body:
                        #"{"app": "\#(mine)", "name": "x", "templateName": "promo-a", "variants": [{"name": "A"}, {"name": "B", "templateName": "promo-b"}]}"#
                )
                #expect(
                    variant.status == .unprocessableContent && variant.json["field"] as? String == "variants[1].templateName",
                    "\(variant.body)")
                // ...and refused in the very words a template that does not exist gets, so a key
                // learns no other app's template names.
                for (taken, missing) in [
                    (
                        #"{"app": "\#(mine)", "name": "x", "templateName": "promo-b"}"#,
                        #"{"app": "\#(mine)", "name": "x", "templateName": "promo-zz"}"#
                    ),
                    (
                        #"{"app": "\#(mine)", "name": "x", "templateName": "promo-a", "variants": [{"name": "A"}, {"name": "B", "templateName": "promo-b"}]}"#,
                        #"{"app": "\#(mine)", "name": "x", "templateName": "promo-a", "variants": [{"name": "A"}, {"name": "B", "templateName": "promo-zz"}]}"#
                    ),
                ] {
                    let created = try await api.request(.post, "/v1/campaigns", key: scoped, body: missing)
                    let draft = try #require(created.json["id"] as? String, "\(created.body)")
                    let unseen = try await api.request(.post, "/v1/campaigns/\(draft)/schedule", key: scoped, body: "{}")
                    let hidden = try await api.request(.post, "/v1/campaigns", key: scoped, body: taken)
                    #expect(hidden.json["field"] as? String == unseen.json["field"] as? String, "\(hidden.body) / \(unseen.body)")
                    #expect(hidden.json["detail"] as? String == unseen.json["detail"] as? String, "\(hidden.body) / \(unseen.body)")
                    #expect(!hidden.body.contains("another app"))
                }
                let sendMissing = try await api.request(
                    .post, "/v1/apps/\(mine)/notifications", key: api.appKey,
                    body: #"{"tokens": ["\#(EngineHarness.token(0).hex)"], "template": {"name": "promo-zz"}}"#)
                let send = try await api.request(
                    .post, "/v1/apps/\(mine)/notifications", key: api.appKey,
                    body:
                        #"{"tokens": ["\#(EngineHarness.token(0).hex)"], "template": {"name": "promo-b", "variables": {"percentOff": 20, "endTime": "noon"}}}"#
                )
                #expect(send.status == .unprocessableContent && send.json["field"] as? String == "template.name", "\(send.body)")
                #expect(send.json["detail"] as? String == sendMissing.json["detail"] as? String, "\(send.body) / \(sendMissing.body)")
                let takenName = try await api.request(
                    .put, "/v1/templates/promo-b?app=\(mine)", key: scoped, body: try Self.body("promo-b"))
                #expect(takenName.status == .unprocessableContent && !takenName.body.contains(other.bundleID), "\(takenName.body)")
                let own = try await api.request(
                    .post, "/v1/campaigns", key: scoped,
                    body: #"{"app": "\#(mine)", "name": "mine", "templateName": "promo-a", "variables": {"percentOff": 20, "endTime": "noon"}}"#)
                #expect(own.status == .created, "\(own.body)")

                // An admin shares promo-b: now every app may use it.
                #expect(try await api.request(.patch, "/v1/templates/promo-b", key: api.marketingKey, body: #"{"app": null}"#).status == .forbidden)
                #expect(try await api.request(.patch, "/v1/templates/nope", key: api.adminKey, body: #"{"app": null}"#).status == .notFound)
                #expect(try await api.request(.patch, "/v1/templates/promo-b", key: api.adminKey, body: #"{"app": "com.nope"}"#).status == .notFound)
                #expect(try await api.request(.patch, "/v1/templates/promo-b", key: api.adminKey, body: #"{}"#).status == .unprocessableContent)
                let shared = try await api.request(.patch, "/v1/templates/promo-b", key: api.adminKey, body: #"{"app": null}"#)
                #expect(shared.status == .ok && shared.json["app"] == nil, "\(shared.body)")
                let now = try await api.request(
                    .post, "/v1/apps/\(mine)/notifications", key: api.appKey,
                    body:
                        #"{"tokens": ["\#(EngineHarness.token(0).hex)"], "template": {"name": "promo-b", "variables": {"percentOff": 20, "endTime": "noon"}}}"#
                )
                #expect(now.status == .ok, "\(now.body)")
            }
        }
    }
}
