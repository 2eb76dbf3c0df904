import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

/// The apps and webhooks pages as pure functions of their models.
@Suite struct AdminViewsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let session = ConsoleSession(
        user: ConsoleUser(id: 1, email: "root@example.com", role: .admin, createdAt: Date(), lastLoginAt: nil, disabledAt: nil),
        csrfToken: "t0ken", createdAt: Date(), lastSeenAt: Date(), expiresAt: Date())

    func credential(_ id: Int64, _ kind: AppCredential.Kind, _ state: AppCredential.State, expires: Date? = nil) -> AppCredential {
        AppCredential(
            id: id, appID: 1, kind: kind, keyID: kind == .token ? "ABC123DEF\(id)" : nil, fingerprint: "0123456789abcdef", state: state,
            certificateSubject: kind == .certificate ? "UID=com.example.a, CN=<Apple Push>" : nil, certificateExpiresAt: expires,
            createdAt: now, activatedAt: nil, retiredAt: nil)
    }

    var app: App {
        App(
            id: 1, bundleID: "com.example.a", teamID: "TEAM123456", keyID: nil, defaultEnvironment: .production,
            apnsEndpoint: nil, apnsCAPEM: nil, createdAt: now)
    }

    @Test func certificatesNearTheirEndAndRefusedCredentialsAreFlagged() {
        var refused = credential(2, .token, .standby)
        refused.rejectedAt = now
        refused.rejectionReason = "InvalidProviderToken <x>"
        let credentials = [
            credential(1, .certificate, .active, expires: now.addingTimeInterval(10 * 86_400)), refused,
            credential(3, .certificate, .standby, expires: now.addingTimeInterval(-60)),
            credential(4, .certificate, .retired, expires: now.addingTimeInterval(-60)),
            credential(5, .certificate, .standby, expires: now.addingTimeInterval(90 * 86_400)),
        ]
        let html = AppsView.render(
            AppsView.Model(app: app, credentials: credentials, notice: nil, acceptsCertificates: true, now: now), session: session
        ).description
        #expect(html.contains("in 10 days"))
        #expect(html.contains("expired"))
        #expect(html.contains("InvalidProviderToken &lt;x&gt;") && !html.contains("<x>"))
        #expect(html.contains("CN=&lt;Apple Push&gt;"))
        // Standby ones can be made active or retired; active and retired ones cannot.
        #expect(html.components(separatedBy: "value=\"activate\"").count - 1 == 3)
        #expect(html.contains("enctype=\"multipart/form-data\"") && html.contains("value=\"certificate\""))

        let list = AppsView.renderList(AppsView.ListModel(rows: [AppsView.Row(app: app, credentials: credentials)], now: now)).description
        #expect(list.contains("standby credential 2 refused by APNs"))
        #expect(list.contains("certificate 3 expired") && !list.contains("certificate 4 expired"))
        #expect(list.contains("certificate 1 expires") && !list.contains("certificate 5 expires"))
        let bare = AppsView.renderList(AppsView.ListModel(rows: [AppsView.Row(app: app, credentials: [])], now: now)).description
        #expect(bare.contains("no active credential"))
    }

    @Test func withoutACertificateReaderOnlyKeysCanBeAdded() {
        let html = AppsView.render(
            AppsView.Model(app: app, credentials: [], notice: nil, acceptsCertificates: false, now: now), session: session
        ).description
        #expect(!html.contains("value=\"certificate\"") && html.contains("No credentials: this app cannot send."))
    }

    @Test func endpointsShowTheirFailureAndMessagesAsText() {
        let endpoint = WebhookEndpoint(
            id: 9, appID: nil, bundleID: nil, url: "https://hooks.example.com/h?a=1&b=<2>", events: WebhookEventType.subscribable,
            description: "ops <pager>", createdAt: now, pending: 3, lastDeliveredAt: nil,
            lastFailure: WebhookFailure(at: now, status: 500, error: "server said <no>"))
        let html = WebhooksView.render(WebhooksView.Model(endpoints: [endpoint], apps: ["com.example.a"], notice: nil), session: session)
            .description
        #expect(html.contains("every app") && html.contains("all events"))
        #expect(html.contains("HTTP 500: server said &lt;no&gt;") && html.contains("a=1&amp;b=&lt;2&gt;"))
        #expect(html.contains("href=\"/console/webhooks/9\""))
        let message = WebhookMessageRecord(
            messageID: UUID(), type: "webhook.test", occurredAt: now, state: "pending", attempts: 2, nextAttemptAt: now,
            lastStatus: 503, lastError: "<busy>", finishedAt: nil)
        let page = WebhooksView.render(WebhooksView.EndpointModel(endpoint: endpoint, messages: [message]), session: session).description
        #expect(page.contains("ops &lt;pager&gt;") && page.contains("&lt;busy&gt;") && page.contains(">503<"))
        #expect(page.contains("class=\"badge scheduled\">pending"))
    }
}
