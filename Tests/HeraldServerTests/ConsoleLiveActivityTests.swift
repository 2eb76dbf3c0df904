import Foundation
import HeraldConsole
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// The console's Live Activity pages (the browser test drives them in Chromium too).
@Suite(.serialized)
struct ConsoleLiveActivityTests {
    @Test(arguments: CitusTestDatabase.engines) func activitiesAreListedShownAndUpdatedByMarketingNotByViewers(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            let bundle = APIHarness.bundleID
            let device = APIHarness.token(1)
            #expect(try await harness.request(.put, "/v1/apps/\(bundle)/devices/\(device)", key: harness.appKey, body: "{}").status == .created)
            let token = try await harness.request(
                .put, "/v1/apps/\(bundle)/live-activities/order%208812%20%3Cb%3E/tokens/\(device)", key: harness.appKey,
                body: #"{"token": "0bda0bda0bda0bda"}"#)
            #expect(token.status == .created, "\(token.body)")
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            _ = try await ConsoleBrowser.addUser(harness, "vic@example.com", role: .viewer)
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            let list = try await browser.get("/console/live-activities?app=\(bundle)")
            #expect(list.status == .ok && list.body.contains("order 8812 &lt;b&gt;"), "\(list.body)")
            let path = "/console/live-activities/\(bundle)/order%208812%20%3Cb%3E"
            #expect(list.body.contains("href=\"\(path)\""))
            let page = try await browser.get(path)
            #expect(page.status == .ok && page.body.contains("id=\"send-update\"") && !page.body.contains("0bda0bda0bda0bda"))
            let sent = try await browser.post(
                "\(path)/updates",
                [("event", "update"), ("contentState", #"{"stopsAway": 2}"#), ("alertTitle", "Almost there"), ("alertBody", "2 stops away")])
            #expect(sent.status == .ok && sent.body.contains("id=\"update-queued\"") && sent.body.contains("priority 10"), "\(sent.body)")
            let bad = try await browser.post("\(path)/updates", [("event", "update"), ("contentState", "[1, 2]")])
            #expect(bad.status == .ok && bad.body.contains("id=\"update-problem\""))
            let half = try await browser.post("\(path)/updates", [("event", "update"), ("contentState", "{}"), ("alertTitle", "Hi")])
            #expect(half.body.contains("both a title and a body"))
            let unknown = try await browser.get("/console/live-activities/\(bundle)/no-such")
            #expect(unknown.status == .notFound)
            _ = try await browser.post("/console/logout")

            var viewer = ConsoleBrowser(harness)
            _ = try await viewer.signIn("vic@example.com")
            let seen = try await viewer.get(path)
            #expect(seen.status == .ok && !seen.body.contains("id=\"send-update\""))
            let refused = try await viewer.post("\(path)/updates", [("event", "update"), ("contentState", "{}")])
            #expect(refused.status == .forbidden)
            let rows = try await harness.store.client.query("SELECT count(*) FROM live_activity_updates").collect()
            #expect(try rows.first?.decode(Int64.self) == 1)
        }
    }
}
