import APNSCore
import ArgumentParser
import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore
import HeraldTemplates
import Logging
import PostgresNIO

/// A year of daily campaigns on a scaled-down audience, with retention and prune as `serve`
/// runs them, printing row counts and table sizes as it goes: the database stays bounded.
struct BenchRetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Simulate daily campaigns, sends, events and token churn for N days with retention and prune; print sizes.",
        discussion: """
            Each simulated day: one campaign to every valid device, sent by the real engine to a sink \
            (`herald apns-sim` as a child process), then dated to that day; transactional sends to 10% \
            of the devices, opens from 5%, a few audit rows; 0.5% of the tokens invalidated and as many \
            new ones registered; then prune (tokens invalidated over 30 days ago) and retention with \
            that day as now. Run it on a database of its own: sizes are the tables' whole sizes.
            """)

    @OptionGroup var options: CommonOptions
    @Option(help: "Devices in the audience.") var devices = 2_000
    @Option(help: "Simulated days.") var days = 365
    @Option(help: "Print sizes every this many days.") var reportEvery = 30
    @Option(help: "The templates folder.") var templates = "templates"
    @Flag(help: "Run without retention, to compare.") var noRetention = false
    @Flag(help: "Keep the bench app afterwards.") var keep = false

    func run() async throws {
        guard devices > 0, days > 0, reportEvery > 0 else { throw CLIError("--devices, --days and --report-every must be positive") }
        let documents: [TemplateDocument]
        do {
            documents = try TemplateLoader.load(directory: URL(fileURLWithPath: templates))
        } catch {
            throw CLIError("--templates: \(templates) does not load")
        }
        guard let document = documents.first(where: { $0.name == "welcome" }) else { throw CLIError("--templates: no welcome template") }
        var (configuration, logger) = try options.load()
        configuration.useOwnSecretIfNone()
        configuration.enginePollMilliseconds = 20
        let sink = try await BenchSink.start(endpoint: nil, caFile: nil)
        defer { sink.stop() }
        let frozen = configuration
        let log = logger
        let plan = (devices: devices, days: days, every: reportEvery, retention: !noRetention, keep: keep)
        try await Store.with(frozen, logger: log) { store in
            _ = try await store.migrator.migrate()
            _ = try await store.templates.save(try CompiledTemplate(document), createdBy: "bench")
            let app = try await store.apps.add(
                try NewApp(
                    bundleID: "com.herald.bench.r\(UInt32.random(in: 0...UInt32.max))", teamID: "BENCH12345",
                    keyID: "BENCH12345", signingKeyPEM: P256.Signing.PrivateKey().pemRepresentation,
                    defaultEnvironment: .production, apnsEndpoint: sink.endpoint, apnsCAPEM: sink.caPEM),
                actor: "bench")
            try await BenchDevices.fill(store: store, appID: app.id, count: plan.devices)
            let service = EngineService(configuration: frozen, store: store, logger: log, owner: "bench-retention")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.run() }
                do {
                    try await Self.simulate(store: store, app: app, plan: plan)
                } catch {
                    service.drain()
                    throw error
                }
                service.drain()
                try await group.waitForAll()
            }
            if !plan.keep { try await BenchCampaignCommand.delete(app, store: store) }
        }
    }

    static let tables = ["deliveries", "notifications", "events", "audit_log", "devices"]

    static func simulate(
        store: Store, app: App, plan: (devices: Int, days: Int, every: Int, retention: Bool, keep: Bool)
    ) async throws {
        let client = store.client
        let logger = Logger(label: "herald.bench")
        let start = Date().addingTimeInterval(-Double(plan.days) * 86_400)
        var nextToken = plan.devices
        let churn = max(1, plan.devices / 200)
        print("day  " + tables.map { $0.padding(toLength: 26, withPad: " ", startingAt: 0) }.joined() + "database")
        let clock = ContinuousClock.now
        for day in 0..<plan.days {
            let today = start.addingTimeInterval(Double(day) * 86_400)
            var campaign = try await store.campaigns.create(
                CampaignDraft(appID: app.id, name: "Day \(day)", templateName: "welcome", variables: ["appName": "Herald"]),
                actor: "bench")
            _ = try await store.campaigns.transition(id: campaign.id, event: .schedule, actor: "bench")
            while !campaign.state.isFinished {
                try await Task.sleep(for: .milliseconds(20))
                campaign = try await store.campaigns.get(id: campaign.id) ?? campaign
            }
            // What that day wrote, dated to that day.
            _ = try await client.query(
                """
                UPDATE campaigns SET created_at = \(today), send_at = \(today), started_at = \(today), finished_at = \(today)
                WHERE id = \(campaign.id)
                """, logger: logger
            ).collect()
            _ = try await client.query(
                "UPDATE deliveries SET created_at = \(today) WHERE app_id = \(app.id) AND campaign_id = \(campaign.id)",
                logger: logger
            ).collect()
            _ = try await client.query(
                """
                INSERT INTO notifications (app_id, request_id, token, device_id, outcome, status, apns_id, language, actor, created_at)
                SELECT app_id, gen_random_uuid(), token, id, 'accepted', 200, gen_random_uuid(), 'en', 'bench', \(today)
                FROM devices WHERE app_id = \(app.id) AND invalidated_at IS NULL AND id % 10 = \(day % 10)
                """, logger: logger
            ).collect()
            _ = try await client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, received_at, apns_id, device_id, campaign_id, language)
                SELECT app_id, 'opened', sha256(apns_id::text::bytea), \(today), \(today), apns_id, device_id, campaign_id, language
                FROM deliveries WHERE app_id = \(app.id) AND campaign_id = \(campaign.id) AND apns_id IS NOT NULL
                  AND device_id % 20 = \(day % 20)
                """, logger: logger
            ).collect()
            _ = try await client.query(
                """
                INSERT INTO audit_log (actor, action, app_id, at)
                SELECT 'bench', 'campaign.schedule', \(app.id), \(today) FROM generate_series(1, 5)
                """, logger: logger
            ).collect()
            // Token churn: some stop answering (APNs's 410), as many new ones register.
            _ = try await client.query(
                """
                UPDATE devices SET invalidated_at = \(today), invalidation_reason = 'Unregistered'
                WHERE app_id = \(app.id) AND id IN (
                    SELECT id FROM devices WHERE app_id = \(app.id) AND invalidated_at IS NULL ORDER BY id LIMIT \(churn))
                """, logger: logger
            ).collect()
            let fresh = (nextToken..<nextToken + churn).map {
                DeviceImportItem(token: BenchDevices.token($0), registration: try! BenchDevices.registration($0))
            }
            nextToken += churn
            _ = try await store.devices.importBatch(appID: app.id, items: fresh)
            _ = try await store.pruner.prune(
                try PruneRequest(
                    invalidatedBefore: today.addingTimeInterval(-30 * 86_400), notRegisteredSince: nil, appID: app.id,
                    dryRun: false, now: today),
                actor: "bench")
            if plan.retention {
                _ = try await store.retention.purge(RetentionPolicy(), now: today, batchSize: 5_000, dryRun: false, actor: "bench")
            }
            if (day + 1) % plan.every == 0 || day == plan.days - 1 {
                // Sizes after a vacuum, as autovacuum keeps them on a live system.
                for table in tables {
                    _ = try await client.query(PostgresQuery(unsafeSQL: "VACUUM \(table)"), logger: logger).collect()
                }
                var line = String(day + 1).padding(toLength: 5, withPad: " ", startingAt: 0)
                for table in tables {
                    let row = try await client.query(
                        PostgresQuery(
                            unsafeSQL: """
                                SELECT count(*), (SELECT sum(pg_total_relation_size(relid))::bigint
                                                  FROM pg_partition_tree('\(table)')) FROM \(table)
                                """),
                        logger: logger
                    ).collect().first
                    var rows: Int64 = 0
                    var bytes: Int64 = 0
                    if let row { (rows, bytes) = try row.decode((Int64, Int64).self) }
                    line += "\(rows) rows, \(mebibytes(bytes))".padding(toLength: 26, withPad: " ", startingAt: 0)
                }
                let database =
                    try await client.query("SELECT pg_database_size(current_database())", logger: logger)
                    .collect().first?.decode(Int64.self) ?? 0
                print(line + mebibytes(database))
            }
        }
        print(
            "simulated \(plan.days) days in \(BenchCampaignCommand.format(ContinuousClock.now - clock))"
                + (plan.retention ? ", with retention at its defaults" : ", without retention"))
    }

    static func mebibytes(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}
