import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

@Suite struct AuditViewTests {
    @Test func entriesShowAsTextWithAPagerThatKeepsTheFilter() {
        var model = AuditView.Model(apps: ["com.example.a"])
        model.filter.set("action", "key.revoke")
        model.entries = [
            AuditEntry(
                id: 7, at: Date(timeIntervalSince1970: 1_800_000_000), actor: "user:<b>eve</b>", action: "key.revoke",
                bundleID: "com.example.a", details: .object(["prefix": .string("hk_1234\"><i>")]))
        ]
        model.nextCursor = 7
        let html = AuditView.render(model).description
        #expect(html.contains("user:&lt;b&gt;eve&lt;/b&gt;") && !html.contains("<b>eve"))
        #expect(html.contains("hk_1234\\&quot;&gt;&lt;i&gt;") && !html.contains("<i>"))
        #expect(html.contains("href=\"/console/audit?action=key.revoke&amp;cursor=7\" rel=\"next\""))
        #expect(html.contains("value=\"key.revoke\""))
    }

    @Test func anEmptyLogSaysSo() {
        let html = AuditView.render(AuditView.Model(apps: [])).description
        #expect(html.contains("No entries match.") && !html.contains("rel=\"next\""))
    }
}
