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
        #expect(
            try NewWebhookEndpoint(url: "http://93.184.215.14:9/x", events: nil, description: nil).events
                == WebhookEventType.subscribable)
        // Loopback only where the setting allows it.
        #expect(throws: ValidationError.self) { try NewWebhookEndpoint(url: "http://127.0.0.1:9/x", events: nil, description: nil) }
        #expect(
            try NewWebhookEndpoint(url: "http://127.0.0.1:9/x", events: nil, description: nil, allowPrivateAddresses: true).url
                == "http://127.0.0.1:9/x")
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

/// Which addresses a webhook may reach.
@Suite struct NetworkAddressTests {
    @Test func publicAddressesAreTheOnlyOnesAllowed() {
        for address in [
            "93.184.215.14", "8.8.8.8", "1.1.1.1", "[2606:4700:4700::1111]", "2a00:1450:4001:82b::200e",
            "100.128.0.1", "172.32.0.1", "192.169.0.1", "::ffff:8.8.8.8", "2002:0808:0808::1",
        ] {
            #expect(NetworkAddress.isPublic(address) == true, "\(address)")
        }
        for address in [
            "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255",
            "192.168.0.1", "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.251", "255.255.255.255",
            "192.0.2.10", "198.51.100.1", "203.0.113.5", "198.18.0.1", "::", "::1", "[::1]", "fe80::1%eth0",
            "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
            "2001:db8::1", "2002:7f00:0001::1", "::127.0.0.1",
        ] {
            #expect(NetworkAddress.isPublic(address) == false, "\(address)")
        }
        for name in ["example.com", "localhost", "0177.0.0.1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "::1::2", "12345::"] {
            #expect(NetworkAddress.isPublic(name) == nil, "\(name)")
        }
        #expect(
            NetworkAddress.isReservedName("hooks.example.com") && NetworkAddress.isReservedName("a.test.")
                && NetworkAddress.isReservedName("x.invalid") && !NetworkAddress.isReservedName("example.community"))
        #expect(
            NetworkAddress.isLocalName("LOCALHOST") && NetworkAddress.isLocalName("api.localhost.")
                && !NetworkAddress.isLocalName("localhost.example.com"))
    }
}
