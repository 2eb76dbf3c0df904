import Foundation
import HeraldConsole
import HeraldCore
import Testing

@testable import HeraldServer

/// The audit log page: admins only, every filter, entries as text.
@Suite struct ConsoleAuditTests {
    @Test func anAdminReadsAndFiltersTheAuditLogAndOthersAreRefused() async throws {
        try await APIHarness.with { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            _ = try await ConsoleBrowser.addUser(harness, "vic@example.com", role: .viewer)
            let hostile = "<script>alert(1)</script>"
            let campaign = try await harness.store.campaigns.create(
                CampaignDraft(appID: harness.app.id, name: "Audited", templateName: "welcome"), actor: hostile)
            _ = try await harness.store.campaigns.transition(id: campaign.id, event: .cancel, actor: "user:ana@example.com")

            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            let page = try await admin.get("/console/audit")
            #expect(page.status == .ok)
            #expect(page.body.contains("href=\"/console/audit\"") && page.body.contains(">Audit log</a>"))
            #expect(page.body.contains("<code>campaign.cancel</code>") && page.body.contains("<code>campaign.create</code>"))
            #expect(!page.body.contains("<script>alert") && page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))

            let cancels = try await admin.get("/console/audit?action=campaign.cancel&app=\(APIHarness.bundleID)")
            #expect(cancels.body.contains("<code>campaign.cancel</code>") && !cancels.body.contains("<code>campaign.create</code>"))
            let byActor = try await admin.get("/console/audit?actor=user%3Aana%40example.com")
            #expect(byActor.body.contains("<code>campaign.cancel</code>") && !byActor.body.contains("<code>campaign.create</code>"))
            let future = try await admin.get("/console/audit?since=2999-01-01")
            #expect(future.body.contains("No entries match."))
            for bad in [
                "/console/audit?since=yesterday", "/console/audit?app=com.example.none", "/console/audit?colour=red",
                "/console/audit?cursor=-1",
            ] {
                #expect(try await admin.get(bad).status == .badRequest, "\(bad)")
            }

            for email in ["ana@example.com", "vic@example.com"] {
                var other = ConsoleBrowser(harness)
                _ = try await other.signIn(email)
                #expect(try await other.get("/console/audit").status == .forbidden, "\(email)")
                #expect(!(try await other.get("/console/campaigns").body.contains("/console/audit")), "\(email)")
            }
        }
    }
}
