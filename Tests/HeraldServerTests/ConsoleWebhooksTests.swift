import Foundation
import HeraldConsole
import HeraldCore
import Testing

@testable import HeraldServer

/// The webhooks pages: an admin adds an endpoint (its secret shown once), sends it a test,
/// reads its messages and removes it; bad input is refused and changes nothing; others are refused.
@Suite struct ConsoleWebhooksTests {
    @Test func anAdminAddsTestsAndRemovesAnEndpoint() async throws {
        try await APIHarness.with(adjust: { $0.webhookAllowPrivateAddresses = true }) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            #expect(try await admin.get("/console/webhooks").body.contains("No endpoints yet."))
            let added = try await admin.post(
                "/console/webhooks",
                [
                    ("intent", "add"), ("url", "http://127.0.0.1:9/hooks"), ("app", APIHarness.bundleID), ("description", "backend <main>"),
                    ("events", "device.invalidated"), ("events", "campaign.completed"),
                ])
            #expect(added.status == .ok)
            let secret = try #require(added.body.firstMatch(of: /<code>(whsec_[A-Za-z0-9+\/=]+)<\/code>/)?.1).description
            let endpoint = try #require(try await harness.store.webhooks.endpoints(appID: harness.app.id).first)
            #expect(endpoint.events == [.deviceInvalidated, .campaignCompleted] && endpoint.description == "backend <main>")
            let listed = try await admin.get("/console/webhooks")
            #expect(!listed.body.contains(secret))
            #expect(listed.body.contains("data-webhook=\"\(endpoint.id)\"") && listed.body.contains("device.invalidated, campaign.completed"))

            let tested = try await admin.post("/console/webhooks", [("intent", "test"), ("webhook", String(endpoint.id))])
            #expect(tested.status == .seeOther && tested.headers[.location] == "/console/webhooks/\(endpoint.id)")
            let page = try await admin.get("/console/webhooks/\(endpoint.id)")
            #expect(page.status == .ok && page.body.contains("webhook.test") && page.body.contains("backend &lt;main&gt;"))
            #expect(page.body.contains("<strong id=\"pending\">1</strong>"))

            let everyApp = try await admin.post("/console/webhooks", [("intent", "add"), ("url", "http://[::1]:9/all")])
            #expect(everyApp.status == .ok)
            #expect(try await harness.store.webhooks.endpoints(appID: nil).count == 1)

            let removed = try await admin.post("/console/webhooks", [("intent", "remove"), ("webhook", String(endpoint.id))])
            #expect(removed.status == .ok && removed.body.contains("Endpoint \(endpoint.id) removed"))
            #expect(try await harness.store.webhooks.endpoints(appID: harness.app.id).isEmpty)
            #expect(try await admin.get("/console/webhooks/\(endpoint.id)").status == .notFound)
            #expect(try await admin.post("/console/webhooks", [("intent", "test"), ("webhook", String(endpoint.id))]).status == .notFound)
        }
    }

    @Test func badEndpointsAreRefusedWithTheirFieldAndOthersMayNotManageWebhooks() async throws {
        try await APIHarness.with { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            _ = try await admin.get("/console/webhooks")
            for (field, fields) in [
                ("url", [("url", "http://127.0.0.1:9/hooks")]),  // loopback, not allowed here
                ("url", [("url", "ftp://hooks.example.com/")]),
                ("url", [("url", "https://user:pw@hooks.example.com/")]),
                ("url", [("url", "")]),
                ("app", [("url", "https://hooks.example.com/h"), ("app", "com.example.none")]),
                ("events[0]", [("url", "https://hooks.example.com/h"), ("events", "campaign.exploded")]),
                ("events[0]", [("url", "https://hooks.example.com/h"), ("events", "webhook.test")]),
                ("description", [("url", "https://hooks.example.com/h"), ("description", "a\u{0}b")]),
            ] {
                let reply = try await admin.post("/console/webhooks", [("intent", "add")] + fields)
                #expect(reply.status == .unprocessableContent, "\(fields)")
                #expect(reply.body.contains("role=\"alert\">\(field):"), "\(fields)")
            }
            #expect(try await admin.post("/console/webhooks", [("intent", "remove"), ("webhook", "x")]).status == .badRequest)
            #expect(try await admin.post("/console/webhooks", [("intent", "remove"), ("webhook", "424242")]).status == .notFound)
            #expect(try await admin.post("/console/webhooks", [("intent", "explode")]).status == .badRequest)
            #expect(try await admin.get("/console/webhooks/x").status == .notFound)
            #expect(try await harness.store.webhooks.endpoints(appID: nil).isEmpty)
            #expect(try await harness.store.webhooks.endpoints(appID: harness.app.id).isEmpty)

            for (email, role) in [("ana@example.com", ConsoleRole.marketing), ("vic@example.com", .viewer)] {
                _ = try await ConsoleBrowser.addUser(harness, email, role: role)
                var someone = ConsoleBrowser(harness)
                _ = try await someone.signIn(email)
                #expect(try await someone.get("/console/webhooks").status == .forbidden, "\(email)")
                let campaigns = try await someone.get("/console/campaigns")
                #expect(!campaigns.body.contains("href=\"/console/webhooks\""), "\(email)")
                let attempt = try await someone.post("/console/webhooks", [("intent", "add"), ("url", "https://hooks.example.com/h")])
                #expect(attempt.status == .forbidden, "\(email)")
            }
            #expect(try await harness.store.webhooks.endpoints(appID: nil).isEmpty)
        }
    }
}
