import APNSClient
import APNSCore
import ArgumentParser
import Crypto
import Foundation
import Logging
import Synchronization

struct BenchSenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sender",
        abstract: "Send N notifications through the sharded pool to an endpoint; print rate, latency and CPU.")

    @Option(help: "The APNs-compatible endpoint, e.g. https://127.0.0.1:2197.") var endpoint: String
    @Option(help: "Extra CA certificate (PEM) to trust, e.g. the simulator's.") var caFile: String?
    @Option(help: "Notifications to send.") var count = 100_000
    @Option(help: "HTTP/2 connections in all, spread over the shards.") var connections = 1
    @Option(help: "Shards of the pool.") var shards = 1
    @Option(help: "Event loops the connections are spread over, as HERALD_APNS_EVENT_LOOPS; 0: all of NIO's.") var eventLoops = 1
    @Option(help: "Notifications in flight per shard.") var inFlight = 1000
    @Option(help: "Notifications per call of the batch API, as a campaign sends them; 1 sends one by one.") var batch = 500
    @Option(help: "Hex tokens, one per line, sent round-robin (default: synthetic tokens).") var tokens: String?
    @Option(help: "The .p8 key to sign provider tokens with (default: a fresh key).") var keyFile: String?
    @Option(help: "Key ID of the provider token.") var keyID = "BENCH12345"
    @Option(help: "Team ID of the provider token.") var teamID = "BENCH12345"
    @Option(help: "apns-topic bundle ID.") var bundleID = "com.example.bench"

    func run() async throws {
        guard let target = APNSEndpoint(url: endpoint) else { throw CLIError("--endpoint must be https://host:port") }
        guard count > 0, connections > 0, shards > 0, eventLoops >= 0, shards <= connections, inFlight > 0, batch > 0 else {
            throw CLIError(
                "--count, --connections, --shards, --in-flight and --batch must be positive, --event-loops at least 0, with shards <= connections")
        }
        var logger = Logger(label: "herald.bench")
        logger.logLevel = ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        var configuration = APNSClientConfiguration(endpoint: target)
        configuration.shards = shards
        configuration.connectionsPerShard = (connections + shards - 1) / shards
        configuration.maximumInFlightPerShard = inFlight
        configuration.eventLoops = eventLoops == 0 ? nil : eventLoops
        if let caFile {
            guard let pem = try? String(contentsOfFile: caFile, encoding: .utf8) else { throw CLIError("--ca-file: cannot read \(caFile)") }
            configuration.additionalTrustRootsPEM = pem
        }
        let key: P256.Signing.PrivateKey
        if let keyFile {
            guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8),
                let parsed = try? P256.Signing.PrivateKey(pemRepresentation: pem)
            else { throw CLIError("--key-file: not a readable P-256 key in PEM") }
            key = parsed
        } else {
            key = P256.Signing.PrivateKey()
        }
        let signer = try ProviderTokenSigner(privateKey: key, keyID: keyID, teamID: teamID)
        let client = try APNSClient(configuration: configuration, credentials: .token(signer), logger: logger)
        let deviceTokens = try loadTokens()
        let payload = Payload(aps: .init(alert: .fields(.init(title: "Herald", body: "A benchmark notification")), sound: .default))
        // Encoded once and checked, as every sender of Herald's hands its payloads over (a
        // campaign's renderer, a direct send, a Live Activity update): the client checks only
        // the size of such a body.
        let body = APNSNotification.Body.encoded(try payload.validate(for: .alert))
        let notifications = deviceTokens.map {
            APNSNotification(token: $0, topic: PushType.alert.topic(forBundleID: bundleID), pushType: .alert, body: body)
        }

        // Warm up: connections open and the stream limit lifts after the first accepted request.
        _ = await client.send(notifications[0])
        let cpuBefore = Self.cpuSeconds()
        let start = ContinuousClock.now
        let (latencies, failures) =
            batch == 1
            ? await send(client: client, notifications: notifications)
            : await sendBatches(client: client, notifications: notifications)
        let elapsed = ContinuousClock.now - start
        let cpu = Self.cpuSeconds() - cpuBefore
        await client.shutdown()

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(Int(Double(sorted.count) * p), sorted.count - 1)] }
        print(
            "endpoint \(target), \(connections) connection(s), \(shards) shard(s), \(inFlight) in flight per shard, "
                + (batch == 1 ? "one call per notification" : "batches of \(batch) (latency is the batch's)"))
        print(String(format: "sent %d in %.2f s: %.0f notifications/s", count, seconds, Double(count) / seconds))
        print(String(format: "latency p50 %.2f ms, p99 %.2f ms", percentile(0.5) * 1000, percentile(0.99) * 1000))
        print(String(format: "CPU %.2f s (%.1f µs per notification)", cpu, cpu / Double(count) * 1e6))
        print("not accepted: \(failures)")
    }

    /// One call per notification from as many callers as the pool holds in flight, each sending
    /// its next notification when the last one is answered: how request handlers call the
    /// sender, without a task made and ended per notification.
    private func send(client: APNSClient, notifications: [APNSNotification]) async -> ([Double], Int) {
        let total = count
        let next = NextIndex()
        return await withTaskGroup(of: ([Double], Int).self) { group in
            for _ in 0..<min(shards * inFlight, total) {
                group.addTask {
                    var latencies = [Double]()
                    var failures = 0
                    while true {
                        let n = next.value.add(1, ordering: .relaxed).oldValue
                        guard n < total else { break }
                        let begin = ContinuousClock.now
                        let result = await client.send(notifications[n % notifications.count])
                        let duration = ContinuousClock.now - begin
                        latencies.append(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                        if result.response?.status != 200 { failures += 1 }
                    }
                    return (latencies, failures)
                }
            }
            var latencies = [Double]()
            latencies.reserveCapacity(total)
            var failures = 0
            for await (part, failed) in group {
                latencies += part
                failures += failed
            }
            return (latencies, failures)
        }
    }

    /// Calls the batch API with enough batches outstanding to keep every shard's bound full.
    private func sendBatches(client: APNSClient, notifications: [APNSNotification]) async -> ([Double], Int) {
        let total = count
        let size = batch
        let width = (shards * inFlight + size - 1) / size + 1
        return await withTaskGroup(of: (Double, Int, Int).self) { group in
            var latencies = [Double]()
            latencies.reserveCapacity(total)
            var failures = 0
            var next = 0
            func launch() {
                let first = next
                let part = (first..<min(first + size, total)).map { notifications[$0 % notifications.count] }
                next += part.count
                group.addTask {
                    let begin = ContinuousClock.now
                    let results = await client.send(part)
                    let duration = ContinuousClock.now - begin
                    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                    return (seconds, results.count, results.count { $0.response?.status != 200 })
                }
            }
            while next < total, next < width * size { launch() }
            for await (latency, sent, failed) in group {
                latencies.append(contentsOf: repeatElement(latency, count: sent))
                failures += failed
                if next < total { launch() }
            }
            return (latencies, failures)
        }
    }

    private func loadTokens() throws -> [DeviceToken] {
        guard let tokens else {
            return (0..<10_000).map { try! DeviceToken(hex: String(format: "%032llx%032llx", UInt64($0), UInt64($0) &* 31)) }
        }
        guard let text = try? String(contentsOfFile: tokens, encoding: .utf8) else { throw CLIError("--tokens: cannot read \(tokens)") }
        var parsed = [DeviceToken]()
        for (index, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
            do {
                parsed.append(try DeviceToken(hex: line.trimmingCharacters(in: .whitespaces)))
            } catch {
                throw CLIError("--tokens line \(index + 1): \(error)")
            }
        }
        guard !parsed.isEmpty else { throw CLIError("--tokens: no tokens in \(tokens)") }
        return parsed
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// The next notification a caller of the one-call benchmark sends.
private final class NextIndex: Sendable {
    let value = Atomic(0)
}
