import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTestSupport
import Hummingbird
import Synchronization
import Testing

@testable import HeraldServer

/// The webhook dispatcher against endpoints that are down, silent or busy, and waiting for
/// work: retries, holds, give-backs, deadlines and wake-ups, over real HTTP to a real local
/// server (docs/webhooks.md, "Retries" and "Running it").
@Suite struct WebhookDispatchTests {
    /// The endpoint is killed: attempts fail (connection refused), are recorded and retried;
    /// once it is back, every message arrives with the ID it had from the start.
    @Test func aDeadEndpointGetsEveryMessageOnceItIsBack() async throws {
        try await Self.withDownEndpoint { h, api, endpoint, receiver in
            var queued = Set<String>()
            for _ in 0..<3 {
                let test = try await api.request(.post, "\(WebhookTests.appPath)/\(endpoint.id)/test", key: api.adminKey)
                #expect(test.status == .accepted, "\(test.body)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(test.body.utf8)) as? [String: Any])
                queued.insert(try #require(object["id"] as? String))
            }
            let expected = queued
            try await h.withWebhookDispatcher {
                try await h.waitFor("a refused attempt", timeout: .seconds(180)) {
                    try await h.store.webhooks.endpoints(appID: h.app.id).first?.lastFailure != nil
                }
                let down = try #require(try await h.store.webhooks.endpoints(appID: h.app.id).first)
                // Refused, as a closed port answers; on a machine too loaded to see the refusal
                // within the attempt's deadline, timed out; or accepted and closed at once by
                // whatever still held the port (seen once in CI, with the suites of both
                // engines running side by side): whichever, recorded, and nothing lost.
                #expect(
                    down.pending == 3
                        && ["connection refused", "timed out", "the endpoint closed the connection"].contains(
                            down.lastFailure?.error ?? ""),
                    "\(down)")
                try await Task.sleep(for: .seconds(1))
                try await receiver.start()
                try await h.waitFor("every message", timeout: .seconds(180)) {
                    try await h.store.webhooks.backlog().pending == 0
                        && Set(receiver.messages.map(\.id)).isSuperset(of: expected)
                }
            }
            #expect(receiver.messages.allSatisfy { $0.isSigned(with: endpoint.secret) && $0.type == "webhook.test" })
            let log = try await api.request(.get, "\(WebhookTests.appPath)/\(endpoint.id)/messages", key: api.adminKey)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(log.body.utf8)) as? [String: Any])
            let messages = try #require(object["messages"] as? [[String: Any]])
            #expect(messages.count == 3 && messages.allSatisfy { $0["state"] as? String == "delivered" })
            #expect(messages.contains { ($0["attempts"] as? Int ?? 0) >= 2 }, "\(messages)")
        }
    }

    /// A message queued while the dispatcher waits is picked up when its transaction commits
    /// (the outbox's NOTIFY), not at the next poll: here the poll is an hour away. So is a
    /// burst for one endpoint, larger than what is claimed for it at once.
    @Test(arguments: CitusTestDatabase.engines) func aQueuedMessageWakesTheDispatcherWithoutWaitingForItsPoll(onCluster: Bool) async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI { api in
                let endpoint = try await WebhookTests.add(api, WebhookTests.appPath, url: receiver.url("/app"))
                try await h.withWebhookDispatcher(pollInterval: .seconds(3600)) {
                    for round in 1...3 {
                        // Let the dispatcher find the outbox empty and settle into its wait.
                        try await Task.sleep(for: .milliseconds(300))
                        #expect(try await api.request(.post, "\(WebhookTests.appPath)/\(endpoint.id)/test", key: api.adminKey).status == .accepted)
                        try await h.waitFor("message \(round)", timeout: .seconds(60)) {
                            WebhookTests.once(receiver.messages(at: "/app")).count == round
                        }
                    }
                    // A burst for one endpoint, queued in one statement (one wake-up): claims
                    // follow as the endpoint works through each share (2 in flight, 8 claimed
                    // ahead here), not one share per poll.
                    _ = try await h.store.client.query(
                        """
                        INSERT INTO webhook_messages (endpoint_id, type, data)
                        SELECT \(Int64(endpoint.id)!), 'webhook.test', jsonb_build_object('n', g) FROM generate_series(1, 40) g
                        """
                    ).collect()
                    try await h.waitFor("the burst", timeout: .seconds(60)) {
                        WebhookTests.once(receiver.messages(at: "/app")).count == 43
                    }
                }
            }
        }
        await receiver.stop()
    }

    /// Messages claimed ahead for an endpoint that fails are given back with their attempt
    /// unspent and wait for the retry, while one message probes the endpoint.
    @Test func messagesClaimedAheadOfAFailingEndpointAreGivenBackUnspent() async throws {
        try await Self.withDownEndpoint { h, api, endpoint, receiver in
            for _ in 0..<6 {
                #expect(try await api.request(.post, "\(WebhookTests.appPath)/\(endpoint.id)/test", key: api.adminKey).status == .accepted)
            }
            let slow = WebhookRetryPolicy(delays: Array(repeating: .seconds(3600), count: 7), maximumAge: .seconds(86_400))
            try await h.withWebhookDispatcher(policy: slow) {
                try await h.waitFor("a refused attempt", timeout: .seconds(180)) {
                    try await h.store.webhooks.endpoints(appID: h.app.id).first?.lastFailure != nil
                }
            }
            let rows = try await h.store.client.query(
                "SELECT attempts, next_attempt_at > now() + interval '30 minutes' FROM webhook_messages WHERE state = 'pending'"
            ).collect().map { try $0.decode((Int32, Bool).self) }
            // One probe per free slot of the endpoint (2 here) spent an attempt; the rest
            // went back unspent; all wait for the retry an hour away.
            #expect(rows.count == 6)
            #expect(rows.filter { $0.0 == 1 }.count <= 2 && rows.filter { $0.0 == 0 }.count >= 4, "\(rows)")
            #expect(rows.allSatisfy { $0.0 <= 1 && $0.1 }, "\(rows)")
        }
    }

    /// A peer that never answers: each attempt ends at its deadline and is recorded; the
    /// campaign and another endpoint carry on as if it were not there.
    @Test func aSilentEndpointTimesOutWithoutHoldingUpSendingOrOtherEndpoints() async throws {
        let silent = try SilentPeer()
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with(fault: WebhookTests.unregistered(0..<20)) { h in
            try await h.withAPI { api in
                _ = try await WebhookTests.add(api, WebhookTests.appPath, url: silent.url("/app"))
                _ = try await WebhookTests.add(api, WebhookTests.allPath, url: receiver.url("/all"), events: ["device.invalidated"])
            }
            try await h.register(0..<100, CampaignEngineTests.registration)
            let scheduled = try await h.scheduledCampaign()
            try await h.withWebhookDispatcher(timeout: .seconds(1)) {
                let campaign = try await h.runToEnd(scheduled)
                let n = try await WebhookTests.invalidatedTokens(h).count
                #expect(campaign.state == .completed && campaign.counters.invalidated == n && n > 0)
                // Bounds against a hang, not timings: a full suite on two cores is slow.
                try await h.waitFor("the other endpoint's messages", timeout: .seconds(300)) {
                    Set(receiver.messages(at: "/all").map(\.id)).count == n
                }
                try await h.waitFor("a timed-out attempt", timeout: .seconds(120)) {
                    try await h.store.webhooks.endpoints(appID: h.app.id).first?.lastFailure?.error == "timed out"
                }
            }
            // Nothing reached the silent endpoint and nothing was lost: every message is still
            // pending, or given up on if the machine was slow enough for its retries to run out.
            let stuck = try #require(try await h.store.webhooks.endpoints(appID: h.app.id).first)
            #expect(stuck.lastDeliveredAt == nil)
            let undelivered = try await h.store.client.query(
                """
                SELECT count(*) FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
                WHERE e.app_id = \(h.app.id) AND m.state <> 'delivered'
                """
            ).collect().first?.decode(Int64.self)
            #expect(undelivered == Int64(try await WebhookTests.invalidatedTokens(h).count + 1))
        }
        await receiver.stop()
    }

    /// An endpoint of the app whose receiver stops once it is added (its connections refused),
    /// handed on with the harness, the API and the receiver (to start again); stopped at the end.
    private static func withDownEndpoint(
        _ body: @escaping @Sendable (EngineHarness, EngineAPI, (id: String, secret: String), WebhookReceiver) async throws -> Void
    ) async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let endpoint = try await WebhookTests.add(api, WebhookTests.appPath, url: receiver.url("/app"))
                await receiver.stop()
                try await body(h, api, endpoint, receiver)
            }
        }
        await receiver.stop()
    }
}
