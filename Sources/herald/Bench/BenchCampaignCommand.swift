import APNSCore
import ArgumentParser
import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldSending
import HeraldServer
import HeraldStore
import HeraldTemplates
import Logging
import PostgresNIO
import Synchronization

struct BenchCampaignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign",
        abstract: "Fill the database with N devices, run a campaign to a sink, print devices/s, first-send time, RSS, CPU.",
        discussion: """
            Uses HERALD_DATABASE_URL and the engine's configuration keys. Devices are written through \
            the import path (the repository behind POST …/devices/import) for a private app, which is \
            deleted afterwards unless --keep. The sink is `herald apns-sim` started as a child process, \
            or --endpoint.
            """)

    @OptionGroup var options: CommonOptions
    @Option(help: "Devices in the audience.") var devices = 100_000
    @Option(help: "An APNs-compatible sink, e.g. https://127.0.0.1:8443 (default: a child herald apns-sim).")
    var endpoint: String?
    @Option(help: "CA certificate (PEM) of --endpoint.") var caFile: String?
    @Option(help: "The template to send (from --templates).") var template = "cart-reminder"
    @Option(help: "Localization mode: server or client.") var mode = "server"
    @Option(help: "The templates folder.") var templates = "templates"
    @Option(help: "An A/B test of this many variants (2 to 5; 0: one message).") var variants = 0
    @Option(help: "Percent of the audience held out (0 to 50).") var holdout = 0.0
    @Option(help: "Frequency caps of the bench app, N/Xd or N/Xh (e.g. 3/7d); repeat for several.")
    var frequencyCap: [String] = []
    @Option(help: "After the campaign, report this many events (80% opens, 20% conversions) and time the report.")
    var events = 0
    @Option(help: "A segment (its JSON, docs/segments.md) the campaign's audience must match.") var segment: String?
    @Option(help: "Attributes each device carries besides the two the template reads (0 to 200).") var attributes = 0
    @Flag(help: "Keep the bench app, its devices and campaign afterwards.") var keep = false

    func run() async throws {
        guard devices > 0 else { throw CLIError("--devices must be positive") }
        guard let localization = Campaign.LocalizationMode(rawValue: mode) else { throw CLIError("--mode: server or client") }
        guard variants == 0 || (AudienceSplit.minimumVariants...AudienceSplit.maximumVariants).contains(variants) else {
            throw CLIError("--variants: 0, or 2 to \(AudienceSplit.maximumVariants)")
        }
        guard (0...50).contains(holdout) else { throw CLIError("--holdout: a percent from 0 to 50") }
        guard events >= 0 else { throw CLIError("--events must not be negative") }
        guard (0...200).contains(attributes) else { throw CLIError("--attributes: 0 to 200") }
        let caps = try CLIError.frequencyCaps(frequencyCap)
        let audienceSegment = try segment.map { text -> Segment in
            do {
                return try Segment(json: try JSONDecoder().decode(PayloadValue.self, from: Data(text.utf8)))
            } catch let error as HeraldCore.ValidationError {
                throw CLIError("--segment: \(error.field): \(error.reason)")
            } catch {
                throw CLIError("--segment: not JSON")
            }
        }
        let documents: [TemplateDocument]
        do {
            documents = try TemplateLoader.load(directory: URL(fileURLWithPath: templates))
        } catch {
            throw CLIError("--templates: \(templates) does not load; run herald templates sync \(templates) to see why")
        }
        guard let document = documents.first(where: { $0.name == template }) else {
            throw CLIError("--template: no template \(template) in \(templates)")
        }
        var (configuration, logger) = try options.load()
        let log = logger
        // The bench app's key is sealed with the instance secret; a run without one makes its own.
        configuration.useOwnSecretIfNone()
        let sink = try await BenchSink.start(endpoint: endpoint, caFile: caFile)
        defer { sink.stop() }
        let frozen = configuration
        let count = devices
        let keep = self.keep
        let test = (variants: self.variants, holdout: Int((holdout * 100).rounded()), events: self.events)
        let extraAttributes = attributes
        try await Store.with(frozen, logger: log) { store in
            _ = try await store.migrator.migrate()
            let compiled = try CompiledTemplate(document)
            _ = try await store.templates.save(compiled, createdBy: "bench")
            let key = P256.Signing.PrivateKey()
            let app = try await store.apps.add(
                try NewApp(
                    bundleID: "com.herald.bench.c\(UInt32.random(in: 0...UInt32.max))", teamID: "BENCH12345",
                    keyID: "BENCH12345", signingKeyPEM: key.pemRepresentation, defaultEnvironment: .production,
                    apnsEndpoint: sink.endpoint, apnsCAPEM: sink.caPEM),
                actor: "bench")
            if !caps.isEmpty {
                _ = try await store.apps.updateSettings(
                    appID: app.id, settings: AppSettings(defaultTimeZone: nil, quietHours: nil, frequencyCaps: caps), actor: "bench")
            }
            do {
                let campaign = try await Self.measure(
                    store: store, app: app, count: count, extraAttributes: extraAttributes, template: compiled.name,
                    localization: localization,
                    test: (test.variants, test.holdout), segment: audienceSegment, configuration: frozen, logger: log, sink: sink)
                if test.events > 0 {
                    try await BenchEvents.measure(store: store, app: app, campaign: campaign, count: test.events)
                }
            } catch {
                if !keep { try? await Self.delete(app, store: store) }
                throw error
            }
            if !keep { try await Self.delete(app, store: store) }
        }
    }

    static func measure(
        store: Store, app: App, count: Int, extraAttributes: Int = 0, template: String, localization: Campaign.LocalizationMode,
        test: (variants: Int, holdout: Int), segment: Segment? = nil, configuration: HeraldConfiguration, logger: Logger,
        sink: BenchSink
    ) async throws -> Campaign {
        let fillStart = ContinuousClock.now
        try await BenchDevices.fill(store: store, appID: app.id, count: count, extraAttributes: extraAttributes)
        let fill = ContinuousClock.now - fillStart
        print("filled \(count) devices through the import path in \(format(fill)) (\(rate(count, fill)) devices/s)")
        // What autovacuum has done long before a campaign on a live system: without it, the
        // analyze of the devices just filled (and the vacuum of a previous round's, deleted)
        // runs during the campaign and is charged to it (BENCHMARKS.md, "Fewer cells per device,
        // and a campaign on settled devices").
        try await store.client.query("VACUUM (ANALYZE) devices")

        let senders = FirstSendClock(APNSSenderDirectory(configuration: configuration, apps: store.apps, logger: logger))
        var delivery = DeliveryConfiguration(owner: "bench")
        delivery.workers = configuration.engineWorkers
        delivery.batchSize = configuration.engineBatchSize
        delivery.leaseDuration = .seconds(configuration.engineLeaseSeconds)
        delivery.pollInterval = .milliseconds(configuration.enginePollMilliseconds)
        let engine = DeliveryEngine(
            configuration: delivery, work: store.campaignWork, campaigns: store.campaigns, templates: store.templates,
            senders: senders, logger: logger)
        let draft = CampaignDraft(
            appID: app.id, name: "bench", templateName: template, localization: localization,
            variables: [
                "storeName": "Herald Shop", "cartItemCount": 1, "percentOff": 30, "endTime": "midnight", "appName": "Herald",
            ],
            variants: (0..<test.variants).map { CampaignVariant(name: "V\($0)", variables: ["storeName": .string("Shop \($0)")]) },
            holdoutBasisPoints: test.holdout)
        var segmented = draft
        segmented.audience.segment = segment
        let campaign = try await store.campaigns.create(segmented, actor: "bench")

        let herald = ProcessStats.cpuSeconds(pid: "self")
        let postgres = ProcessStats.CPUSince(processesNamed: "postgres")
        let sinkCPU = sink.cpuSeconds()
        let peak = PeakMemory()
        let (elapsed, final) = try await withThrowingTaskGroup(of: (Duration, Campaign)?.self) { group in
            group.addTask {
                try await engine.run()
                return nil
            }
            group.addTask {
                while !Task.isCancelled {
                    peak.sample()
                    try await Task.sleep(for: .milliseconds(100))
                }
                return nil
            }
            let start = ContinuousClock.now
            senders.start(at: start)
            _ = try await store.campaigns.transition(id: campaign.id, event: .schedule, actor: "bench")
            var current = campaign
            while !current.state.isFinished {
                try await Task.sleep(for: .milliseconds(50))
                current = try await store.campaigns.get(id: campaign.id) ?? current
            }
            let elapsed = ContinuousClock.now - start
            engine.drain()
            group.cancelAll()
            try? await group.waitForAll()
            await senders.directory.shutdown()
            return (elapsed, current)
        }
        let counters = final.counters
        let heraldCPU = ProcessStats.cpuSeconds(pid: "self") - herald
        let postgresCPU = postgres.seconds
        let sinkUsed = sink.cpuSeconds() - sinkCPU
        print(
            "campaign \(final.state.rawValue): \(counters.audienceSize) devices, accepted \(counters.accepted), "
                + "failed \(counters.failed), skipped \(counters.skipped), deferred \(counters.deferred), unsent \(counters.unsent), "
                + "held out \(counters.heldOut); caps \(final.frequencyCaps.map(\.description).joined(separator: " ")); by variant "
                + counters.variants.map { "\($0.name) \($0.assigned)" }.joined(separator: ", "))
        print(
            "end to end \(format(elapsed)): \(rate(counters.audienceSize, elapsed)) devices/s "
                + "(\(configuration.engineWorkers) workers, batches of \(configuration.engineBatchSize), "
                + "\(configuration.apnsShards) shards × \(configuration.apnsConnectionsPerShard) connections)")
        print(
            "first notification handed to APNs \(senders.firstSend.map(format) ?? "never") after scheduling "
                + "(the scheduler polls every \(configuration.enginePollMilliseconds) ms)")
        print(
            "herald RSS peak during the campaign \(ProcessStats.megabytes(peak.bytes)), "
                + "peak over the whole run \(ProcessStats.megabytes(ProcessStats.memory("VmHWM")))")
        let total = heraldCPU + postgresCPU + sinkUsed
        print(
            String(
                format: "CPU seconds: herald %.1f, PostgreSQL %.1f (%.0f%% of the three), sink %.1f; %.1f µs of herald CPU per device",
                heraldCPU, postgresCPU, total > 0 ? postgresCPU / total * 100 : 0, sinkUsed,
                heraldCPU / Double(max(1, counters.audienceSize)) * 1e6))
        return final
    }

    static func delete(_ app: App, store: Store) async throws {
        // The ledger has no key to `campaigns` (migration 0035), so deleting the app leaves it.
        // Millions of rows take longer than the pool's statement timeout allows one statement.
        try await store.client.withConnection { connection in
            // `logger:` picks postgres-nio's awaited query; without it a `String` goes to the
            // older API that returns a future, and the deletes would outlive this function.
            let logger = connection.logger
            try await connection.query("SET statement_timeout = 0", logger: logger)
            try await connection.query("DELETE FROM deliveries WHERE app_id = \(app.id)", logger: logger)
            try await connection.query("DELETE FROM frequency_sends WHERE app_id = \(app.id)", logger: logger)
            try await connection.query("DELETE FROM apps WHERE id = \(app.id)", logger: logger)
            try await connection.query("RESET statement_timeout", logger: logger)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ duration: Duration) -> String { String(format: "%.2f s", seconds(duration)) }

    static func rate(_ count: Int, _ duration: Duration) -> String {
        String(format: "%.0f", Double(count) / max(seconds(duration), 1e-9))
    }
}

/// The engine's senders, noting when the first notification is handed over.
final class FirstSendClock: SenderDirectory {
    let directory: APNSSenderDirectory
    private let times = Mutex<(start: ContinuousClock.Instant?, first: Duration?)>((nil, nil))

    init(_ directory: APNSSenderDirectory) {
        self.directory = directory
    }

    func start(at instant: ContinuousClock.Instant) {
        times.withLock { $0.start = instant }
    }

    var firstSend: Duration? { times.withLock { $0.first } }

    func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender {
        let sender = try await directory.sender(appID: appID, environment: environment)
        times.withLock { times in
            if times.first == nil, let start = times.start { times.first = ContinuousClock.now - start }
        }
        return sender
    }
}

/// The highest resident memory sampled.
final class PeakMemory: Sendable {
    private let peak = Mutex(ProcessStats.memory())

    func sample() {
        let now = ProcessStats.memory()
        peak.withLock { $0 = max($0, now) }
    }

    var bytes: Int { peak.withLock { $0 } }
}
