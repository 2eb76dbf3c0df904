import Foundation
import HeraldCore
import HeraldTemplates
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// `/v1/campaigns` on the real application and PostgreSQL, the engine off: every transition
/// is the test's own.
@Suite struct CampaignAPITests {
    static let draft = """
        {"app": "com.example.herald", "name": "Spring sale", "notes": "EU only", "templateName": "welcome",
         "localization": "client", "variables": {"appName": "Acme"},
         "audience": {"languages": ["de", "pt-BR"], "authorization": {"allowsAlerts": true}},
         "pushOptions": {"collapseID": "spring", "timeToLive": 3600}, "sendAt": "2030-01-01T09:00:00Z", "rateLimit": 500}
        """

    static func withTemplates(_ body: @Sendable (APIHarness) async throws -> Void) async throws {
        try await APIHarness.with { h in
            for document in try TemplateLoader.load(directory: TestDatabase.repositoryRoot.appendingPathComponent("templates")) {
                _ = try await h.store.templates.save(try CompiledTemplate(document), createdBy: "test")
            }
            try await body(h)
        }
    }

    @Test func aDraftIsCreatedEditedScheduledAndCancelled() async throws {
        try await Self.withTemplates { h in
            let created = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: Self.draft)
            #expect(created.status == .created, "\(created.body)")
            let id = try #require(created.json["id"] as? String)
            #expect(UUID(uuidString: id) != nil)
            #expect(created.json["state"] as? String == "draft" && created.json["app"] as? String == APIHarness.bundleID)
            #expect(created.json["templateVersion"] == nil && created.json["rateLimit"] as? Int == 500)
            let audience = try #require(created.json["audience"] as? [String: Any])
            #expect(audience["languages"] as? [String] == ["de", "pt-BR"])
            let push = try #require(created.json["pushOptions"] as? [String: Any])
            #expect(push["collapseID"] as? String == "spring" && push["timeToLive"] as? Int == 3600)
            let counters = try #require(created.json["counters"] as? [String: Any])
            #expect(counters["audienceSize"] as? Int == 0 && counters["pending"] as? Int == 0)

            let edited = try await h.request(
                .patch, "/v1/campaigns/\(id)", key: h.adminKey, body: #"{"name": "Spring sale v2", "notes": null, "sendAt": null}"#)
            #expect(edited.status == .ok, "\(edited.body)")
            #expect(edited.json["name"] as? String == "Spring sale v2")
            #expect(edited.json["notes"] == nil && edited.json["sendAt"] == nil && edited.json["rateLimit"] as? Int == 500)

            let listed = try await h.request(.get, "/v1/campaigns?state=draft&app=\(APIHarness.bundleID)", key: h.marketingKey)
            #expect((listed.json["campaigns"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            let none = try await h.request(.get, "/v1/campaigns?state=running", key: h.marketingKey)
            #expect((none.json["campaigns"] as? [Any])?.isEmpty == true)

            let scheduled = try await h.request(.post, "/v1/campaigns/\(id)/schedule", key: h.marketingKey)
            #expect(scheduled.status == .ok && scheduled.json["state"] as? String == "scheduled", "\(scheduled.body)")
            #expect(scheduled.json["templateVersion"] as? Int == 1)

            // Only drafts can be edited; a scheduled campaign cannot pause or resume.
            for (method, path) in [
                (HTTPRequest.Method.patch, ""), (.post, "/pause"), (.post, "/resume"), (.post, "/schedule"),
            ] {
                let refused = try await h.request(method, "/v1/campaigns/\(id)\(path)", key: h.adminKey, body: #"{"name": "x"}"#)
                #expect(refused.status == .conflict && refused.problemSlug == "invalid-transition", "\(path)")
                #expect(refused.json["field"] as? String == "state")
            }
            let shown = try await h.request(.get, "/v1/campaigns/\(id)", key: h.marketingKey)
            #expect(shown.json["state"] as? String == "scheduled" && shown.json["name"] as? String == "Spring sale v2")

            let cancelled = try await h.request(.post, "/v1/campaigns/\(id)/cancel", key: h.marketingKey)
            #expect(cancelled.status == .ok && cancelled.json["state"] as? String == "cancelled")
            #expect(cancelled.json["finishedAt"] != nil)
            let again = try await h.request(.post, "/v1/campaigns/\(id)/cancel", key: h.marketingKey)
            #expect(again.status == .conflict && again.problemSlug == "invalid-transition")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func schedulingWithoutTheTemplateIsRefused(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let created = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: Self.draft)
            let id = try #require(created.json["id"] as? String)
            let refused = try await h.request(.post, "/v1/campaigns/\(id)/schedule", key: h.marketingKey)
            #expect(refused.status == .unprocessableContent && refused.json["field"] as? String == "templateName")
            let shown = try await h.request(.get, "/v1/campaigns/\(id)", key: h.marketingKey)
            #expect(shown.json["state"] as? String == "draft")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badDraftsNameTheirFieldAndStoreNothing(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let cases: [(String, String, Int)] = [
                (#"{"app": "com.example.herald", "templateName": "welcome"}"#, "name", 422),
                (#"{"app": "com.example.herald", "name": "x"}"#, "templateName", 422),
                (#"{"name": "x", "templateName": "welcome"}"#, "app", 422),
                (#"{"app": "com.example.nope", "name": "x", "templateName": "welcome"}"#, "app", 404),
                (#"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "colour": 1}"#, "colour", 422),
                (#"{"app": "com.example.herald", "name": "x", "templateName": "Welcome!"}"#, "templateName", 422),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "localization": "both"}"#,
                    "localization", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "sendAt": "tomorrow"}"#,
                    "sendAt", 422
                ),
                (#"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "rateLimit": 0}"#, "rateLimit", 422),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "audience": {"langs": ["de"]}}"#,
                    "audience.langs", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "audience": {"languages": ["12"]}}"#,
                    "audience.languages[0]", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "audience": {"environment": "dev"}}"#,
                    "audience.environment", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "audience": {"authorization": {"alerts": true}}}"#,
                    "audience.authorization.alerts", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "pushOptions": {"collapseID": ""}}"#,
                    "pushOptions.collapseID", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "pushOptions": {"collapseID": "sale\r\nX-Injected: 1"}}"#,
                    "pushOptions.collapseID", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "variants": [{"name": "A", "pushOptions": {"collapseID": "a\nb"}}, {"name": "B"}]}"#,
                    "variants[0].pushOptions.collapseID", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "pushOptions": {"threadID": "t\u0000"}}"#,
                    "pushOptions.threadID", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "pushOptions": {"priority": 7}}"#,
                    "pushOptions.priority", 422
                ),
                (
                    #"{"app": "com.example.herald", "name": "x", "templateName": "welcome", "pushOptions": {"pushType": "voip"}}"#,
                    "pushOptions.pushType", 422
                ),
                ("[1, 2]", "", 400),
                ("{", "", 400),
            ]
            for (body, field, status) in cases {
                let reply = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: body)
                #expect(Int(reply.status.code) == status, "\(body): \(reply.body)")
                #expect(reply.headers[.contentType] == "application/problem+json")
                if !field.isEmpty { #expect(reply.json["field"] as? String == field, "\(body): \(reply.body)") }
            }
            // Every broken rule at once.
            let several = try await h.request(
                .post, "/v1/campaigns", key: h.marketingKey,
                body: #"{"app": "com.example.herald", "name": " ", "templateName": "welcome", "rateLimit": -1, "pushOptions": {"relevanceScore": 2}}"#
            )
            let errors = try #require(several.json["errors"] as? [[String: Any]])
            #expect(Set(errors.compactMap { $0["field"] as? String }) == ["name", "pushOptions.relevanceScore", "rateLimit"])
            let rows = try await h.store.client.query("SELECT count(*) FROM campaigns").collect()
            #expect(try rows.first!.decode(Int64.self) == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func onlyMarketingAndAdminKeysUseCampaigns(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            for (method, path) in [
                (HTTPRequest.Method.post, "/v1/campaigns"), (.get, "/v1/campaigns"), (.post, "/v1/campaigns/estimate"),
                (.get, "/v1/campaigns/\(UUID().uuidString)"),
            ] {
                let reply = try await h.request(method, path, key: h.appKey, body: Self.draft)
                #expect(reply.status == .forbidden && reply.problemSlug == "forbidden", "\(path)")
                let anonymous = try await h.request(method, path, key: nil, body: Self.draft)
                #expect(anonymous.status == .unauthorized, "\(path)")
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func unknownCampaignsAndBadQueriesAreProblems(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            for path in ["/v1/campaigns/\(UUID().uuidString)", "/v1/campaigns/42", "/v1/campaigns/\(UUID().uuidString)/deliveries"] {
                let reply = try await h.request(.get, path, key: h.adminKey)
                #expect(reply.status == .notFound && reply.problemSlug == "unknown-campaign", "\(path)")
            }
            let created = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: Self.draft)
            let id = try #require(created.json["id"] as? String)
            let empty = try await h.request(.get, "/v1/campaigns/\(id)/deliveries?outcome=failed&limit=10", key: h.adminKey)
            #expect(empty.status == .ok && (empty.json["deliveries"] as? [Any])?.isEmpty == true)
            for (query, field) in [
                ("/v1/campaigns?state=done", "state"), ("/v1/campaigns?limit=0", "limit"), ("/v1/campaigns?sort=name", "sort"),
                ("/v1/campaigns?cursor=x", "cursor"), ("/v1/campaigns/\(id)/deliveries?outcome=lost", "outcome"),
                ("/v1/campaigns/\(id)/deliveries?limit=5000", "limit"),
            ] {
                let reply = try await h.request(.get, query, key: h.adminKey)
                #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(query)")
            }
            let unknownApp = try await h.request(.get, "/v1/campaigns?app=com.example.nope", key: h.adminKey)
            #expect(unknownApp.status == .notFound && unknownApp.json["field"] as? String == "app")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func estimatesCountTheMatchingValidDevices(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let languages = [#"["de-DE"]"#, #"["de-AT","en"]"#, #"["en-GB","de"]"#, #"["pt-BR"]"#]
            for (n, list) in languages.enumerated() {
                let reply = try await h.request(
                    .put, "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(n))", key: h.appKey,
                    body: #"{"languages": \#(list), "authorization": {"status": "authorized"}}"#)
                #expect(reply.status == .created)
            }
            func estimate(_ audience: String) async throws -> Reply {
                try await h.request(
                    .post, "/v1/campaigns/estimate", key: h.marketingKey,
                    body: #"{"app": "com.example.herald", "audience": \#(audience)}"#)
            }
            #expect(try await estimate("{}").json["devices"] as? Int == 4)
            #expect(try await estimate(#"{"languages": ["de"]}"#).json["devices"] as? Int == 2)
            #expect(try await estimate(#"{"languages": ["pt-BR", "en"]}"#).json["devices"] as? Int == 2)
            #expect(try await estimate(#"{"authorization": {"allowsAlerts": false}}"#).json["devices"] as? Int == 0)
            let bad = try await estimate(#"{"timeZones": [1]}"#)
            #expect(bad.status == .unprocessableContent && bad.json["field"] as? String == "audience.timeZones[0]")
            let dates = try await estimate(#"{"registeredSince": "2030-01-01T00:00:00Z", "registeredBefore": "2029-01-01T00:00:00Z"}"#)
            #expect(dates.status == .unprocessableContent && dates.json["field"] as? String == "audience.registeredBefore")
        }
    }
}
