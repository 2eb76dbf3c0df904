import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldStore

/// The outbox's claim (docs/webhooks.md, "Delivery"): each endpoint's due messages, oldest
/// first, at most its share, none of an endpoint skipped; read from the head of the
/// endpoint's index whatever the planner's statistics say.
@Suite struct WebhookClaimTests {
    static func endpoint(_ store: PostgresWebhookStore, _ path: String) async throws -> Int64 {
        try await store.addEndpoint(
            appID: nil, try NewWebhookEndpoint(url: "https://backend.example.com\(path)", events: ["device.invalidated"], description: nil),
            actor: "test"
        ).endpoint.id
    }

    /// Queues `count` messages for `endpoint`, each `spacing` seconds after the one before,
    /// starting `secondsAgo` back (`data.n` numbers them from `first`).
    static func queue(
        _ client: PostgresClient, endpoint: Int64, count: Int, first: Int = 0, secondsAgo: Double = 600, spacing: Double = 1
    ) async throws {
        try await client.query(
            """
            INSERT INTO webhook_messages (endpoint_id, type, data, next_attempt_at)
            SELECT \(endpoint), 'device.invalidated', jsonb_build_object('n', \(Int64(first)) + g),
                   now() - make_interval(secs => \(secondsAgo)) + make_interval(secs => g * \(spacing))
            FROM generate_series(0, \(Int64(count - 1))) g
            """
        ).collect()
    }

    static func number(_ delivery: WebhookDelivery) -> Int {
        let body = try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any]
        return ((body?["data"] as? [String: Any])?["n"] as? Int) ?? -1
    }

    @Test func eachEndpointGetsItsShareOldestFirstAndSkippedEndpointsNone() async throws {
        try await StoreFixture.with { f in
            let store = PostgresWebhookStore(client: f.client, vault: f.vault, logger: TestDatabase.logger)
            let (busy, quiet, skipped) = (
                try await Self.endpoint(store, "/busy"), try await Self.endpoint(store, "/quiet"), try await Self.endpoint(store, "/skipped")
            )
            try await Self.queue(f.client, endpoint: busy, count: 50)
            try await Self.queue(f.client, endpoint: quiet, count: 3, first: 100, secondsAgo: 400)
            try await Self.queue(f.client, endpoint: skipped, count: 5, first: 200, secondsAgo: 900)
            // Not due yet: never claimed.
            try await Self.queue(f.client, endpoint: quiet, count: 2, first: 300, secondsAgo: -60)

            let first = try await store.claim(limit: 20, perEndpoint: 8, skipping: [skipped], lease: .seconds(60))
            #expect(first.filter { $0.endpointID == busy }.map(Self.number).sorted() == Array(0..<8))
            #expect(first.filter { $0.endpointID == quiet }.map(Self.number).sorted() == [100, 101, 102])
            #expect(!first.contains { $0.endpointID == skipped })
            #expect(first.allSatisfy { $0.attempt == 1 && $0.secret.hasPrefix("whsec_") })
            // The body as endpoints get it: the type, the time it happened, the data.
            let body = try #require(JSONSerialization.jsonObject(with: Data(first[0].body.utf8)) as? [String: Any])
            #expect(body["type"] as? String == "device.invalidated" && (body["timestamp"] as? String)?.hasSuffix("Z") == true)

            // Claimed messages are leased: the next claim takes the ones after them.
            let second = try await store.claim(limit: 100, perEndpoint: 8, skipping: [], lease: .seconds(60))
            #expect(second.filter { $0.endpointID == busy }.map(Self.number).sorted() == Array(8..<16))
            #expect(second.filter { $0.endpointID == skipped }.map(Self.number).sorted() == Array(200..<205))
            #expect(!second.contains { $0.endpointID == quiet })

            // Recorded with the status each got (two statuses, one batch); a given-back message
            // is due again with its attempt unspent.
            let busyFirst = first.filter { $0.endpointID == busy }
            let quietFirst = first.filter { $0.endpointID == quiet }
            try await store.recordDelivered(
                busyFirst.prefix(5).map { WebhookDelivered(id: $0.id, status: 204) }
                    + busyFirst.dropFirst(5).map { WebhookDelivered(id: $0.id, status: 200) })
            try await store.release(quietFirst.map(\.id), dueAt: Date().addingTimeInterval(-3600))
            let states = try await f.client.query(
                "SELECT state, coalesce(last_status, 0), attempts, count(*) FROM webhook_messages GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
            ).collect().map { try $0.decode((String, Int32, Int32, Int64).self) }
            #expect(
                states.map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == [
                    "delivered 200 1 3", "delivered 204 1 5", "pending 0 0 39", "pending 0 1 13",
                ])
            let again = try await store.claim(limit: 100, perEndpoint: 8, skipping: [], lease: .seconds(60))
            #expect(Set(again.map(\.id)).isSuperset(of: quietFirst.map(\.id)))
            #expect(again.filter { $0.endpointID == quiet }.allSatisfy { $0.attempt == 1 })
        }
    }

    /// After a burst the statistics still say the outbox is nearly empty. The claim must read
    /// only the head of each endpoint's index, not every pending message (a bitmap scan and a
    /// sort, each claim: BENCHMARKS.md, "Webhook delivery: claims per endpoint").
    @Test func aBurstIsClaimedFromTheHeadOfTheEndpointsIndexWhateverTheStatisticsSay() async throws {
        try await StoreFixture.with { f in
            let store = PostgresWebhookStore(client: f.client, vault: f.vault, logger: TestDatabase.logger)
            let endpoint = try await Self.endpoint(store, "/burst")
            try await Self.queue(f.client, endpoint: endpoint, count: 20)
            _ = try await f.client.query("ANALYZE webhook_messages").collect()
            try await Self.queue(f.client, endpoint: endpoint, count: 20_000, first: 20, secondsAgo: 300, spacing: 0.001)
            func plan(_ statement: PostgresQuery) async throws -> String {
                try await f.client.query(PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds)).collect()
                    .map { try $0.decode(String.self) }.joined(separator: "\n")
            }
            // The due messages from the head of the endpoint's index; the rows taken by their key.
            let claim = try await plan(
                PostgresWebhookStore.claimStatement(limit: 64, perEndpoint: 64, skipping: [], lease: .seconds(60)))
            #expect(claim.components(separatedBy: "using webhook_messages_endpoint_due_idx").count == 2, "\(claim)")
            #expect(claim.contains("using webhook_messages_pkey"), "\(claim)")
            #expect(!claim.contains("Bitmap") && !claim.contains("Seq Scan on webhook_messages"), "\(claim)")
            let claimed = try await store.claim(limit: 64, perEndpoint: 64, skipping: [], lease: .seconds(60))
            #expect(claimed.map(Self.number).sorted() == Array(0..<64))
            let delivered = try await plan(PostgresWebhookStore.deliveredStatement(ids: claimed.map(\.id), status: 204))
            #expect(delivered.contains("webhook_messages_pkey") && !delivered.contains("endpoint_due_idx"), "\(delivered)")
        }
    }
}
