import Foundation
import HeraldCore
import Testing

@Suite struct WebhookRulesTests {
    @Test func retriesFollowTheScheduleThenStop() throws {
        let policy = WebhookRetryPolicy.standard
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(policy.maximumAttempts == 8)
        #expect(policy.retryAt(afterAttempt: 1, occurredAt: start, now: start) == start.addingTimeInterval(5))
        #expect(policy.retryAt(afterAttempt: 2, occurredAt: start, now: start) == start.addingTimeInterval(300))
        let seventh = start.addingTimeInterval(60_000)
        #expect(policy.retryAt(afterAttempt: 7, occurredAt: start, now: seventh) == seventh.addingTimeInterval(36_000))
        #expect(policy.retryAt(afterAttempt: 8, occurredAt: start, now: seventh) == nil)
        #expect(policy.retryAt(afterAttempt: 0, occurredAt: start, now: start) == nil)
        // Never past the event's maximum age, whatever the attempt.
        let late = start.addingTimeInterval(3 * 86_400 - 10)
        #expect(policy.retryAt(afterAttempt: 3, occurredAt: start, now: late) == nil)
        #expect(!policy.hasExpired(occurredAt: start, now: late))
        #expect(policy.hasExpired(occurredAt: start, now: late.addingTimeInterval(11)))
    }

    @Test func endpointsTakeAbsoluteHTTPURLsAndKnownEvents() throws {
        let endpoint = try NewWebhookEndpoint(
            url: "https://backend.example.com:8443/herald?team=1", events: ["device.invalidated", "device.invalidated"],
            description: "ops")
        #expect(endpoint.events == [.deviceInvalidated])
        #expect(try NewWebhookEndpoint(url: "http://127.0.0.1:9/x", events: nil, description: nil).events
            == WebhookEventType.subscribable)
        #expect(!WebhookEventType.subscribable.contains(.test))
        let refused: [(String, [String]?, String?, String)] = [
            ("ftp://example.com/", nil, nil, "url"), ("example.com/hook", nil, nil, "url"), ("https://", nil, nil, "url"),
            ("https://u:p@example.com/", nil, nil, "url"), ("https://example.com/#x", nil, nil, "url"),
            ("https://example.com/é", nil, nil, "url"), ("https://example.com/\t", nil, nil, "url"),
            ("https://example.com:0/", nil, nil, "url"),
            ("https://example.com/" + String(repeating: "a", count: 2100), nil, nil, "url"),
            ("https://example.com/", [], nil, "events"), ("https://example.com/", ["campaign.completed", "x"], nil, "events[1]"),
            ("https://example.com/", nil, String(repeating: "d", count: 201), "description"),
            ("https://example.com/", nil, "bell\u{7}", "description"),
        ]
        for (url, events, description, field) in refused {
            #expect(throws: ValidationError.self, "\(url)") {
                try NewWebhookEndpoint(url: url, events: events, description: description)
            }
            do {
                _ = try NewWebhookEndpoint(url: url, events: events, description: description)
            } catch {
                #expect(error.field == field, "\(url): \(error)")
            }
        }
    }
}
