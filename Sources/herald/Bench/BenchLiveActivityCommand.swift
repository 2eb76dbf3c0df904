import APNSCore
import ArgumentParser
import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldSending
import HeraldServer
import HeraldStore
import Logging
import PostgresNIO

/// `herald bench live-activity`: one update of one activity fanned out to N update tokens,
/// through the real Live Activity engine, to a sink (docs/live-activities.md "How an update is
/// sent"); `ops/bench-live-activity` runs it against h2load to the same sink.
struct BenchLiveActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-activity",
        abstract: "Fill N update tokens under one activity, fan updates out to a sink, print tokens/s and CPU per token.",
        discussion: """
            Uses HERALD_DATABASE_URL and the engine's configuration keys. Devices are written through \
            the import path for a private app, each with an update token under one activity; the app \
            is deleted afterwards unless --keep. The sink is `herald apns-sim` started as a child \
            process, or --endpoint.
            """)

    @OptionGroup var options: CommonOptions
    @Option(help: "Update tokens under the activity.") var tokens = 100_000
    @Option(help: "Updates sent one after the other, each to every token.") var updates = 1
    @Option(help: "An APNs-compatible sink, e.g. https://127.0.0.1:8443 (default: a child herald apns-sim).")
    var endpoint: String?
    @Option(help: "CA certificate (PEM) of --endpoint.") var caFile: String?
    @Flag(help: "Keep the bench app, its devices and activity afterwards.") var keep = false

    func run() async throws {
        guard tokens > 0 else { throw CLIError("--tokens must be positive") }
        guard (1...100).contains(updates) else { throw CLIError("--updates: 1 to 100") }
        var (configuration, logger) = try options.load()
        configuration.useOwnSecretIfNone()
        let sink = try await BenchSink.start(endpoint: endpoint, caFile: caFile)
        defer { sink.stop() }
        let (frozen, log, count, rounds, keep) = (configuration, logger, tokens, updates, self.keep)
        try await Store.with(frozen, logger: log) { store in
            _ = try await store.migrator.migrate()
            let key = P256.Signing.PrivateKey()
            let app = try await store.apps.add(
                try NewApp(
                    bundleID: "com.herald.bench.la\(UInt32.random(in: 0...UInt32.max))", teamID: "BENCH12345",
                    keyID: "BENCH12345", signingKeyPEM: key.pemRepresentation, defaultEnvironment: .production,
                    apnsEndpoint: sink.endpoint, apnsCAPEM: sink.caPEM),
                actor: "bench")
            do {
                try await Self.measure(store: store, app: app, count: count, updates: rounds, configuration: frozen, logger: log, sink: sink)
            } catch {
                if !keep { try? await BenchCampaignCommand.delete(app, store: store) }
                throw error
            }
            if !keep { try await BenchCampaignCommand.delete(app, store: store) }
        }
    }

    static let activityID = "bench-activity"

    static func measure(
        store: Store, app: App, count: Int, updates: Int, configuration: HeraldConfiguration, logger: Logger, sink: BenchSink
    ) async throws {
        let fillStart = ContinuousClock.now
        try await BenchDevices.fill(store: store, appID: app.id, count: count)
        // Each device's update token: its device token with another first byte.
        try await store.client.query(
            "INSERT INTO live_activities (app_id, activity_id) VALUES (\(app.id), \(activityID))")
        try await store.client.query(
            """
            INSERT INTO live_activity_tokens (app_id, activity_id, device_id, part, token)
            SELECT app_id, \(activityID), id, part, '\\x0b'::bytea || substring(token FROM 2) FROM devices WHERE app_id = \(app.id)
            ORDER BY id
            """)
        let fill = ContinuousClock.now - fillStart
        print("filled \(count) devices and their update tokens in \(BenchCampaignCommand.format(fill))")

        let senders = APNSSenderDirectory(configuration: configuration, apps: store.apps, logger: logger)
        var delivery = DeliveryConfiguration(owner: "bench")
        delivery.batchSize = configuration.engineBatchSize
        delivery.leaseDuration = .seconds(configuration.engineLeaseSeconds)
        delivery.pollInterval = .milliseconds(configuration.enginePollMilliseconds)
        let engine = LiveActivityEngine(
            configuration: delivery, workers: configuration.liveActivityWorkers, batchSize: configuration.liveActivityBatchSize,
            work: store.liveActivityWork,
            templates: store.templates, senders: senders, logger: logger)
        let updater = LiveActivityUpdater(activities: store.liveActivities, templates: store.templates)

        let herald = ProcessStats.cpuSeconds(pid: "self")
        let postgres = ProcessStats.CPUSince(processesNamed: "postgres")
        let sinkCPU = sink.cpuSeconds()
        let peak = PeakMemory()
        var finals = [LiveActivityUpdate]()
        let elapsed = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            group.addTask {
                while !Task.isCancelled {
                    peak.sample()
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let start = ContinuousClock.now
            for step in 1...updates {
                let request = LiveActivityUpdateRequest(
                    event: .update, contentState: ["status": "out-for-delivery", "stopsAway": .int(step)])
                guard case .queued(let queued) = try await updater.submit(app: app, activityID: activityID, request: request, actor: "bench")
                else { throw CLIError("the bench update was not queued") }
                var current = queued
                while current.state != .sent, current.state != .superseded {
                    try await Task.sleep(for: .milliseconds(20))
                    current = try await store.liveActivities.update(appID: app.id, activityID: activityID, updateID: queued.id) ?? current
                }
                finals.append(current)
            }
            let elapsed = ContinuousClock.now - start
            engine.drain()
            group.cancelAll()
            try? await group.waitForAll()
            await senders.shutdown()
            return elapsed
        }
        let sent = finals.reduce(0) { $0 + $1.counts.accepted + $1.counts.failed }
        let heraldCPU = ProcessStats.cpuSeconds(pid: "self") - herald
        let postgresCPU = postgres.seconds
        let sinkUsed = sink.cpuSeconds() - sinkCPU
        print(
            "updates: "
                + finals.map { "\($0.id) \($0.state.rawValue) accepted \($0.counts.accepted) failed \($0.counts.failed)" }
                .joined(separator: "; "))
        print(
            "fan-out \(BenchCampaignCommand.format(elapsed)): \(BenchCampaignCommand.rate(sent, elapsed)) tokens/s "
                + "(\(updates) update(s) × \(count) tokens, batches of \(configuration.liveActivityBatchSize), "
                + "\(configuration.apnsShards) shards × \(configuration.apnsConnectionsPerShard) connections)")
        print("herald RSS peak \(ProcessStats.megabytes(peak.bytes))")
        let total = heraldCPU + postgresCPU + sinkUsed
        print(
            String(
                format: "CPU seconds: herald %.1f, PostgreSQL %.1f (%.0f%% of the three), sink %.1f; %.1f µs of herald CPU per token",
                heraldCPU, postgresCPU, total > 0 ? postgresCPU / total * 100 : 0, sinkUsed,
                heraldCPU / Double(max(1, sent)) * 1e6))
    }
}
