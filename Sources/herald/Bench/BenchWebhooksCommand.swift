import ArgumentParser
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore
import Logging
import PostgresNIO

/// `herald bench webhooks`: how fast the dispatcher empties the outbox to a few endpoints, and
/// what each message costs in CPU here and in PostgreSQL (ops/bench-webhooks runs it beside
/// h2load posting the same bodies to the same sink).
struct BenchWebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Queue N webhook messages for a few endpoints and time the dispatcher delivering them all.")

    @OptionGroup var options: CommonOptions
    @Option(help: "The endpoint to post to (a sink answering 2xx).") var url: String
    @Option(help: "Messages to queue and deliver.") var messages = 20_000
    @Option(help: "Messages in flight at once (HERALD_WEBHOOK_CONCURRENCY).") var concurrency = 64
    @Option(help: "Endpoints the messages are spread over, each at URL/1, URL/2, …; each takes at most a quarter of the slots.")
    var endpoints = 4
    @Flag(help: "Answer every attempt 204 without posting it: the outbox's and the dispatcher's cost alone.")
    var withoutHTTP = false

    func run() async throws {
        guard messages > 0, concurrency > 0, endpoints > 0 else {
            throw CLIError("--messages, --concurrency and --endpoints must be positive")
        }
        var added = [NewWebhookEndpoint]()
        for n in 1...endpoints {
            do {
                // The benchmark's sink listens on this machine: a loopback address is what it is for.
                added.append(
                    try NewWebhookEndpoint(
                        url: url + (url.hasSuffix("/") ? "" : "/") + "\(n)", events: ["device.invalidated"],
                        description: "herald bench webhooks", allowPrivateAddresses: true))
            } catch {
                throw CLIError(error)
            }
        }
        var (configuration, logger) = try options.load()
        // The endpoints' secrets are sealed with the instance secret; a run without one makes its own.
        configuration.useOwnSecretIfNone()
        let (count, concurrency, log, withoutHTTP, new) = (messages, self.concurrency, logger, withoutHTTP, added)
        try await Store.with(configuration, logger: log) { store in
            _ = try await store.migrator.migrate()
            var ids = [Int64]()
            do {
                for endpoint in new { ids.append(try await store.webhooks.addEndpoint(appID: nil, endpoint, actor: "bench").endpoint.id) }
                try await Self.measure(
                    ids, count: count, concurrency: concurrency, withoutHTTP: withoutHTTP, store: store, logger: log)
            } catch {
                for id in ids { _ = try? await store.webhooks.removeEndpoint(appID: nil, id: id, actor: "bench") }
                throw error
            }
            for id in ids { _ = try await store.webhooks.removeEndpoint(appID: nil, id: id, actor: "bench") }
        }
    }

    /// Queues `count` messages spread over `endpoints`, delivers them as `herald serve` does
    /// (at most a quarter of the slots to one endpoint) and prints the figures.
    static func measure(
        _ endpoints: [Int64], count: Int, concurrency: Int, withoutHTTP: Bool, store: Store, logger log: Logger
    ) async throws {
        // Bodies like an invalidation's, as an endpoint for every app gets them.
        _ = try await store.client.query(
            """
            INSERT INTO webhook_messages (endpoint_id, type, data)
            SELECT (\(endpoints)::bigint[])[1 + g % \(Int64(endpoints.count))], 'device.invalidated',
                   jsonb_build_object('app', 'com.example.bench', 'tokenSuffix', lpad(to_hex(g), 8, '0'),
                                      'environment', 'production', 'reason', 'Unregistered',
                                      'invalidatedAt', herald_rfc3339(now()), 'apnsTimestamp', herald_rfc3339(now()))
            FROM generate_series(1, \(Int64(count))) g
            """, logger: log
        ).collect()
        let transport = HTTPWebhookTransport(allowPrivateAddresses: true)
        let dispatcher = WebhookDispatcher(
            store: store.webhooks, transport: withoutHTTP ? AnsweredAtOnce() : transport, concurrency: concurrency,
            perEndpoint: max(1, concurrency / 4), logger: log)
        let cpu = ProcessStats.cpuSeconds(pid: "self")
        let database = ProcessStats.CPUSince(processesNamed: "postgres")
        let start = ContinuousClock.now
        let task = Task { await dispatcher.run() }
        // Done when no endpoint has anything pending (read from the heads of their index, not
        // counted: a count of thousands of rows a hundred times a second would be measured as
        // the dispatcher's).
        while try await store.client.query(
            """
            SELECT EXISTS (SELECT 1 FROM unnest(\(endpoints)::bigint[]) e(id)
                           WHERE EXISTS (SELECT 1 FROM webhook_messages WHERE endpoint_id = e.id AND state = 'pending'))
            """, logger: log
        ).collect().first?.decode(Bool.self) ?? false {
            try await Task.sleep(for: .milliseconds(10))
        }
        let elapsed = ContinuousClock.now - start
        let herald = (ProcessStats.cpuSeconds(pid: "self") - cpu) / Double(count) * 1e6
        let postgres = database.seconds / Double(count) * 1e6
        let pickups = try await Self.pickups(endpoint: endpoints[0], client: store.client, logger: log)
        dispatcher.drain()
        await task.value
        await transport.shutdown()
        let seconds = Self.seconds(elapsed)
        let failed =
            try await store.client.query(
                "SELECT count(*) FROM webhook_messages WHERE endpoint_id = ANY (\(endpoints)::bigint[]) AND state <> 'delivered'",
                logger: log
            ).collect().first?.decode(Int64.self) ?? 0
        print(
            String(
                format:
                    "herald webhooks: %d messages to %d endpoints in %.2f s: %.0f/s, %.1f µs CPU each in herald, %.1f µs in PostgreSQL, %d not delivered",
                count, endpoints.count, seconds, Double(count) / seconds, herald, postgres, failed))
        print(
            String(
                format: "herald webhooks: pickup of a message queued alone (%d, the poll 1 s away): median %.1f ms, max %.1f ms",
                pickups.count, pickups[pickups.count / 2] * 1e3, pickups.last! * 1e3))
    }
}

extension BenchWebhooksCommand {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Seconds from the commit of a message queued alone, with the dispatcher idle, to its
    /// delivery recorded (read every millisecond); twenty of them, sorted.
    static func pickups(endpoint: Int64, client: PostgresClient, logger: Logger) async throws -> [Double] {
        var pickups = [Double]()
        for n in 0..<20 {
            // Idle: the outbox is empty and the dispatcher waits for its poll.
            try await Task.sleep(for: .milliseconds(200))
            let queued = try await client.query(
                """
                INSERT INTO webhook_messages (endpoint_id, type, data)
                VALUES (\(endpoint), 'device.invalidated', jsonb_build_object('app', 'com.example.bench', 'n', \(Int64(n))))
                RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self)
            let committed = ContinuousClock.now
            while try await client.query(
                "SELECT state = 'pending' FROM webhook_messages WHERE id = \(queued)", logger: logger
            ).collect().first?.decode(Bool.self) ?? false {
                try await Task.sleep(for: .milliseconds(1))
            }
            pickups.append(seconds(ContinuousClock.now - committed))
        }
        return pickups.sorted()
    }
}

/// `--without-http`: every attempt answered 204 at once, nothing posted.
private struct AnsweredAtOnce: WebhookTransport {
    func post(url: String, headers: [(String, String)], body: String, timeout: Duration) async -> WebhookAttemptResult {
        .status(204)
    }
}
