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
import PostgresNIO

/// `herald bench journeys`: users entering a journey through the event intake, and their
/// timers released to a sink (BENCHMARKS.md, "Journeys").
struct BenchJourneysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journeys",
        abstract: "Enter N users in a journey over a minute, release their timers to a sink; print entries/s and due-to-sent delays.",
        discussion: """
            Uses HERALD_DATABASE_URL. A private app gets N devices (the import path) and a journey: a \
            wait of --wait-minutes, then a send of cart-reminder, then an exit. Each device's custom \
            event goes through the same intake as POST …/events, in batches of 1,000 spread over \
            --entry-seconds; the journey engine (as herald serve runs it) walks the entries and sends \
            to the sink (a child herald apns-sim, or --endpoint). Printed: the intake's entries/s beside \
            a plain INSERT of the same rows into the same table (the ceiling, same run), and the delay \
            from each user's due moment to its ledger row (p50, p95, p99, max).
            """)

    @OptionGroup var options: CommonOptions
    @Option(help: "Users (devices) entering.") var users = 100_000
    @Option(help: "The journey's wait before its send, in minutes.") var waitMinutes = 1
    @Option(help: "Seconds the entries are spread over.") var entrySeconds = 60
    @Option(help: "An APNs-compatible sink (default: a child herald apns-sim).") var endpoint: String?
    @Option(help: "CA certificate (PEM) of --endpoint.") var caFile: String?
    @Option(help: "The templates folder.") var templates = "templates"
    @Flag(help: "Keep the bench app and its data afterwards.") var keep = false

    func run() async throws {
        guard users > 0, waitMinutes >= 1, entrySeconds >= 0 else {
            throw CLIError("--users must be positive, --wait-minutes at least 1, --entry-seconds not negative")
        }
        let documents = try TemplateLoader.load(directory: URL(fileURLWithPath: templates))
        guard let document = documents.first(where: { $0.name == "cart-reminder" }) else {
            throw CLIError("--templates: no cart-reminder in \(templates)")
        }
        var (configuration, logger) = try options.load()
        configuration.useOwnSecretIfNone()
        configuration.databaseStatementTimeoutMilliseconds = 0
        let sink = try await BenchSink.start(endpoint: endpoint, caFile: caFile)
        defer { sink.stop() }
        let (frozen, log, users, wait, spread, keep) = (configuration, logger, self.users, waitMinutes, entrySeconds, self.keep)
        try await Store.with(frozen, logger: log) { store in
            _ = try await store.migrator.migrate()
            _ = try await store.templates.save(try CompiledTemplate(document), createdBy: "bench")
            let app = try await store.apps.add(
                try NewApp(
                    bundleID: "com.herald.bench.j\(UInt32.random(in: 0...UInt32.max))", teamID: "BENCH12345",
                    keyID: "BENCH12345", signingKeyPEM: P256.Signing.PrivateKey().pemRepresentation,
                    defaultEnvironment: .production, apnsEndpoint: sink.endpoint, apnsCAPEM: sink.caPEM),
                actor: "bench")
            do {
                try await Self.measure(
                    store: store, app: app, users: users, wait: wait, spread: spread, configuration: frozen, logger: log)
            } catch {
                if !keep { try? await BenchCampaignCommand.delete(app, store: store) }
                throw error
            }
            if !keep { try await BenchCampaignCommand.delete(app, store: store) }
        }
    }

    static func measure(
        store: Store, app: App, users: Int, wait: Int, spread: Int, configuration: HeraldConfiguration, logger: Logger
    ) async throws {
        let fillStart = ContinuousClock.now
        try await BenchDevices.fill(store: store, appID: app.id, count: users)
        print("filled \(users) devices through the import path in \(BenchCampaignCommand.format(.now - fillStart))")
        let journey = try await Self.journey(store: store, app: app, name: "bench", wait: wait, activate: true)
        let ceilingJourney = try await Self.journey(store: store, app: app, name: "ceiling", wait: wait, activate: false)

        // The intake alone first, with no engine running: 10,000 users entering a journey that
        // starts with a long wait, against a plain INSERT of the same rows (the ceiling).
        let probe = try await Self.journey(store: store, app: app, name: "probe", wait: 600, activate: true, event: "bench_probe")
        let probeUsers = min(users, 10_000)
        let probeStart = ContinuousClock.now
        for start in stride(from: 0, to: probeUsers, by: 1000) {
            let now = Date()
            _ = try await store.events.record(
                appID: app.id,
                events: (start..<min(probeUsers, start + 1000)).map { n in
                    AppEvent(
                        kind: .custom(name: "bench_probe", properties: ["cartItemCount": .int(1 + n % 5)]), occurredAt: now,
                        token: BenchDevices.token(n), eventID: "probe-\(n)")
                })
        }
        let probeTime = ContinuousClock.now - probeStart
        let ceilingStart = ContinuousClock.now
        for start in stride(from: 0, to: probeUsers, by: 1000) {
            let keys = (start..<min(probeUsers, start + 1000)).map { "d:ceiling-\($0)" }
            try await store.client.query(
                """
                INSERT INTO journey_entries (journey_id, version, app_id, user_key, entry_number, entered_at, properties,
                                             held_out, step, arrived_at, cause, due_at)
                SELECT \(ceilingJourney.id), 1, \(app.id), key, 1, now(), '{"cartItemCount": 2}'::jsonb, false, 'wait', now(),
                       'arrived', now() + interval '10 hours'
                FROM unnest(\(keys)::text[]) AS t(key)
                """)
        }
        let ceiling = ContinuousClock.now - ceilingStart
        let probeRate = Double(probeUsers) / BenchCampaignCommand.seconds(probeTime)
        let ceilingRate = Double(probeUsers) / BenchCampaignCommand.seconds(ceiling)
        print(
            String(
                format: "intake alone: %d users entered at %.0f entries/s (the event's own INSERT and the intake, one transaction "
                    + "a batch of 1,000), ceiling %.0f rows/s (plain INSERT of the same rows): %.2f of it",
                probeUsers, probeRate, ceilingRate, probeRate / ceilingRate))
        try await store.client.query("DELETE FROM journey_entries WHERE journey_id IN (\(probe.id), \(ceilingJourney.id))")

        let senders = APNSSenderDirectory(configuration: configuration, apps: store.apps, logger: logger)
        var delivery = DeliveryConfiguration(owner: "bench")
        delivery.leaseDuration = .seconds(configuration.engineLeaseSeconds)
        delivery.pollInterval = .milliseconds(configuration.enginePollMilliseconds)
        let engine = JourneyEngine(
            configuration: delivery, work: store.journeyWork, apps: store.apps,
            sender: DirectSender(
                devices: store.devices, templates: store.templates, senders: senders, ledger: store.directSends, logger: logger),
            batchSize: configuration.journeyBatchSize, concurrency: configuration.journeyConcurrency, logger: logger)
        let herald = ProcessStats.cpuSeconds(pid: "self")
        let postgres = ProcessStats.CPUSince(processesNamed: "postgres")
        let (intake, finished) = try await withThrowingTaskGroup(of: (Duration, Duration)?.self) { group in
            group.addTask {
                try await engine.run()
                return nil
            }
            let start = ContinuousClock.now
            let batches = (users + 999) / 1000
            var inRecord = Duration.zero
            for batch in 0..<batches {
                let moment = start + .milliseconds(Int64(batch) * Int64(spread) * 1000 / Int64(max(batches, 1)))
                if moment > .now { try await Task.sleep(until: moment) }
                let now = Date()
                let events = (batch * 1000..<min(users, batch * 1000 + 1000)).map { n in
                    AppEvent(
                        kind: .custom(name: "bench_cart", properties: ["cartItemCount": .int(1 + n % 5)]), occurredAt: now,
                        token: BenchDevices.token(n), eventID: "bench-\(n)")
                }
                let recordStart = ContinuousClock.now
                _ = try await store.events.record(appID: app.id, events: events)
                inRecord += .now - recordStart
            }
            print("entered \(users) users over \(BenchCampaignCommand.format(.now - start)); waiting for their timers")
            let limit = ContinuousClock.now + .seconds(wait * 60 + spread + 600)
            while ContinuousClock.now < limit {
                let inside =
                    try await store.client.query(
                        "SELECT count(*) FROM journey_entries WHERE journey_id = \(journey.id) AND step IS NOT NULL"
                    ).collect().first?.decode(Int64.self) ?? 0
                if inside == 0 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            let finished = ContinuousClock.now - start
            engine.drain()
            group.cancelAll()
            try? await group.waitForAll()
            await senders.shutdown()
            return (inRecord, finished)
        }!
        let heraldCPU = ProcessStats.cpuSeconds(pid: "self") - herald
        let postgresCPU = postgres.seconds

        print(
            String(
                format: "intake under load (the engine sending meanwhile): %.0f entries/s, %.2f s in the event transactions",
                Double(users) / BenchCampaignCommand.seconds(intake), BenchCampaignCommand.seconds(intake)))

        let row = try await store.client.query(
            """
            WITH sent AS (
                SELECT extract(epoch FROM min(d.created_at) - (e.entered_at + make_interval(mins => \(wait)::integer)))::float8 AS delay
                FROM journey_entries e JOIN journey_deliveries d ON d.entry_id = e.id
                WHERE e.journey_id = \(journey.id) GROUP BY e.id)
            SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY delay), percentile_cont(0.95) WITHIN GROUP (ORDER BY delay),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY delay), max(delay)
            FROM sent
            """
        ).collect().first
        var figures: (Int64, Double?, Double?, Double?, Double?) = (0, nil, nil, nil, nil)
        if let row { figures = try row.decode((Int64, Double?, Double?, Double?, Double?).self) }
        let (sent, p50, p95, p99, worst) = figures
        let outcomes = try await store.client.query(
            "SELECT outcome, count(*) FROM journey_deliveries WHERE journey_id = \(journey.id) GROUP BY outcome ORDER BY outcome"
        ).collect().map { try $0.decode((String, Int64).self) }
        print(
            "sent to \(sent) users (\(outcomes.map { "\($0.0) \($0.1)" }.joined(separator: ", "))); all done \(BenchCampaignCommand.format(finished)) after the first entry"
        )
        print(
            String(
                format: "due to sent: p50 %.3f s, p95 %.3f s, p99 %.3f s, max %.3f s (engine: batches of %d, %d at once, poll %d ms)",
                p50 ?? Double.nan, p95 ?? Double.nan, p99 ?? Double.nan, worst ?? Double.nan, configuration.journeyBatchSize,
                configuration.journeyConcurrency,
                configuration.enginePollMilliseconds))
        print(
            String(
                format: "CPU seconds: herald %.1f, PostgreSQL %.1f; %.0f µs of herald CPU per user",
                heraldCPU, postgresCPU, heraldCPU / Double(users) * 1e6))
    }

    static func journey(
        store: Store, app: App, name: String, wait: Int, activate: Bool, event: String = "bench_cart"
    ) async throws -> Journey {
        let definition = try JSONDecoder().decode(
            PayloadValue.self,
            from: Data(
                """
                {"entry": {"event": {"name": "\(activate ? event : "bench_none")"}}, "start": "wait",
                 "steps": {"wait": {"wait": {"minutes": \(wait)}, "next": "remind"},
                           "remind": {"send": {"template": "cart-reminder", "variables": {"storeName": "Herald Shop"}}, "next": "done"},
                           "done": {"exit": {}}}}
                """.utf8))
        guard
            case .saved(let journey) = try await store.journeys.create(
                appID: app.id, name: name, description: nil, definition: definition, actor: "bench")
        else { throw CLIError("the bench journey was not saved") }
        guard activate else { return journey }
        guard
            case .saved(let active) = try await store.journeys.transition(
                appID: app.id, name: name, event: .activate, actor: "bench", now: Date())
        else { throw CLIError("the bench journey was not activated") }
        return active
    }
}
