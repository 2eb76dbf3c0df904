import APNSCore
import ArgumentParser
import Crypto
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore
import PostgresNIO

/// `herald bench segments`: how fast segments count and a campaign's chunk reads them, at a
/// million devices with events and campaign ledgers (BENCHMARKS.md, "Segments").
struct BenchSegmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segments",
        abstract: "Fill N devices, their events and campaign ledgers; time segment counts beside a plain count of the same devices.",
        discussion: """
            Uses HERALD_DATABASE_URL. Devices are written through the import path for a private app; \
            events (80% opens, 20% purchases) and the ledgers of --campaigns campaigns (each accepted \
            for --ledger-percent of the devices, over the last 60 days) are written in SQL. Each segment \
            is counted --runs times through the repository the API uses; the ceiling is the plain count \
            of the app's valid devices on the same connection pool, timed the same way in the same run. \
            --explain prints each plan, and that of one page of a campaign chunk read with a segment.
            """)

    @OptionGroup var options: CommonOptions
    @Option(help: "Devices of the bench app.") var devices = 1_000_000
    @Option(help: "Events: 80% opens and 20% purchases, on random devices over the last 60 days.") var events = 100_000
    @Option(help: "Campaigns whose ledgers are written.") var campaigns = 10
    @Option(help: "Percent of the devices each campaign's ledger holds.") var ledgerPercent = 20.0
    @Option(help: "Timed counts of each segment.") var runs = 5
    @Flag(help: "Print PostgreSQL's plan of each count and of a chunk read.") var explain = false
    @Flag(help: "Keep the bench app and its data afterwards.") var keep = false

    func run() async throws {
        guard devices > 0, events >= 0, campaigns >= 1, runs >= 1, (0...100).contains(ledgerPercent) else {
            throw CLIError("--devices, --campaigns and --runs must be positive, --events not negative, --ledger-percent 0 to 100")
        }
        var (configuration, logger) = try options.load()
        configuration.useOwnSecretIfNone()
        // Filling a million rows in one statement takes longer than a request may.
        configuration.databaseStatementTimeoutMilliseconds = 0
        let (devices, events, campaigns, percent, runs, explain, keep) =
            (self.devices, self.events, self.campaigns, self.ledgerPercent, self.runs, self.explain, self.keep)
        try await Store.with(configuration, logger: logger) { store in
            _ = try await store.migrator.migrate()
            let app = try await store.apps.add(
                try NewApp(
                    bundleID: "com.herald.bench.s\(UInt32.random(in: 0...UInt32.max))", teamID: "BENCH12345",
                    keyID: "BENCH12345", signingKeyPEM: P256.Signing.PrivateKey().pemRepresentation,
                    defaultEnvironment: .production),
                actor: "bench")
            do {
                try await Self.fill(store: store, app: app, devices: devices, events: events, campaigns: campaigns, percent: percent)
                try await Self.measure(store: store, app: app, runs: runs, explain: explain)
            } catch {
                if !keep { try? await BenchCampaignCommand.delete(app, store: store) }
                throw error
            }
            if !keep { try await BenchCampaignCommand.delete(app, store: store) }
        }
    }

    static func fill(store: Store, app: App, devices: Int, events: Int, campaigns: Int, percent: Double) async throws {
        var start = ContinuousClock.now
        try await BenchDevices.fill(store: store, appID: app.id, count: devices)
        print("filled \(devices) devices through the import path in \(BenchCampaignCommand.format(.now - start))")
        start = .now
        // A cart value on most devices, numbers and numbers stored as text, for comparisons. The
        // JSON is written as text: a Citus cluster takes only immutable functions of a column in
        // an UPDATE (jsonb_build_object and to_jsonb are stable).
        try await store.client.query(
            """
            UPDATE devices SET attributes = attributes || ('{"cartValue": '
                || CASE WHEN id % 10 = 0 THEN '"' || (id % 200)::text || '"' ELSE (id % 200)::text END || '}')::jsonb
            WHERE app_id = \(app.id) AND id % 25 <> 0
            """)
        var ids = [Int64]()
        for n in 0..<campaigns {
            let draft = CampaignDraft(appID: app.id, name: "bench \(n)", templateName: "cart-reminder")
            ids.append(try await store.campaigns.create(draft, actor: "bench").id)
        }
        let share = percent / 100
        for id in ids {
            try await store.client.query(
                """
                INSERT INTO deliveries (app_id, campaign_id, device_id, part, outcome, status, apns_id, created_at)
                SELECT \(app.id), \(id), d.id, d.part, 'accepted', 200, gen_random_uuid(), now() - random() * interval '60 days'
                FROM devices d WHERE d.app_id = \(app.id) AND random() < \(share)
                """)
        }
        try await store.client.query(
            """
            INSERT INTO events (app_id, kind, identity, occurred_at, device_id, name, value, campaign_id, apns_id)
            SELECT \(app.id), CASE WHEN g % 5 = 0 THEN 'converted' ELSE 'opened' END,
                   sha256(('bench-' || \(app.id) || '-' || g)::bytea), now() - random() * interval '60 days', d.id,
                   CASE WHEN g % 5 = 0 THEN 'purchase' END, CASE WHEN g % 5 = 0 THEN (g % 100)::float8 END,
                   \(ids[0]), CASE WHEN g % 5 = 0 THEN NULL ELSE gen_random_uuid() END
            FROM generate_series(1, \(events)) g
            CROSS JOIN (SELECT array_agg(id ORDER BY id) AS ids FROM devices WHERE app_id = \(app.id)) r
            CROSS JOIN LATERAL (SELECT r.ids[1 + (hashint8(g) & 2147483647) % cardinality(r.ids)] AS id) d
            """)
        // What autovacuum does in time: the cart-value update above left a dead copy of every row.
        try await store.client.query("VACUUM (ANALYZE) devices")
        try await store.client.query("VACUUM (ANALYZE) deliveries")
        try await store.client.query("VACUUM (ANALYZE) events")
        let ledger =
            try await store.client.query("SELECT count(*) FROM deliveries WHERE app_id = \(app.id)")
            .collect().first?.decode(Int64.self) ?? 0
        print("wrote \(campaigns) campaigns' ledgers (\(ledger) rows) and \(events) events in \(BenchCampaignCommand.format(.now - start))")
    }

    static func measure(store: Store, app: App, runs: Int, explain: Bool) async throws {
        let campaign = try await store.client.query(
            "SELECT public_id FROM campaigns WHERE app_id = \(app.id) ORDER BY id LIMIT 1"
        ).collect().first?.decode(UUID.self)
        let segments: [(String, String)] = [
            ("cart value over 50", #"{"attribute": "cartValue", "gt": 50}"#),
            ("any language German", #"{"language": "de"}"#),
            ("opened nothing in 30 days", #"{"not": {"opened": {"withinDays": 30}}}"#),
            (
                "received campaign 1, no purchase",
                #"{"all": [{"received": {"campaign": "\#(campaign?.uuidString ?? "")"}}, {"not": {"converted": {"event": "purchase"}}}]}"#
            ),
            ("purchase of 20 or more in 60 days", #"{"converted": {"event": "purchase", "minimumValue": 20, "withinDays": 60}}"#),
            (
                "nested: big carts, de or fr, no open in 7 days",
                #"{"all": [{"attribute": "cartItemCount", "gte": 2}, {"any": [{"language": "de"}, {"language": "fr"}]}, {"not": {"opened": {"withinDays": 7}}}]}"#
            ),
        ]
        let floor = try await time(runs: runs) {
            try await store.client.query(
                "SELECT count(*) FROM devices WHERE app_id = \(app.id) AND invalidated_at IS NULL"
            ).collect().first?.decode(Int64.self) ?? 0
        }
        print(
            "count".padding(toLength: 48, withPad: " ", startingAt: 0) + "   devices    min ms median ms  ×floor")
        print(line("the app's valid devices (the floor)", floor, floor: floor.median))
        for (name, json) in segments {
            let segment = try Segment(json: try JSONDecoder().decode(PayloadValue.self, from: Data(json.utf8)))
            let timed = try await time(runs: runs) {
                Int64(try await store.segments.count(appID: app.id, segment: segment, now: Date()))
            }
            print(line(name, timed, floor: floor.median))
            if explain {
                for row in try await store.segments.explainCount(appID: app.id, segment: segment, now: Date()) { print("    \(row)") }
            }
        }
        if explain {
            // One page of a campaign chunk (a sixteenth of the buckets) with the nested segment.
            var filter = AudienceFilter()
            filter.segment = try Segment(
                json: try JSONDecoder().decode(PayloadValue.self, from: Data(segments[5].1.utf8)))
            let bound =
                try await store.client.query("SELECT max(id) FROM devices WHERE app_id = \(app.id)")
                .collect().first?.decode(Int64.self) ?? 0
            let lease = ChunkLease(
                campaignID: 0, appID: app.id, chunk: 0, buckets: CampaignChunking.buckets(ofChunk: 0), cursor: 0,
                inFlightTo: nil, audienceBound: bound, owner: "bench", token: 0, expiresAt: Date())
            print("a chunk's first page of 500 devices, with the nested segment:")
            for row in try await store.campaignWork.explainNextDevices(lease, filter: filter, after: 0, limit: 500) {
                print("    \(row)")
            }
        }
    }

    static func time(runs: Int, _ body: () async throws -> Int64) async throws -> (count: Int64, min: Double, median: Double) {
        var times = [Double]()
        var count: Int64 = 0
        for _ in 0..<runs {
            let start = ContinuousClock.now
            count = try await body()
            times.append(BenchCampaignCommand.seconds(.now - start) * 1000)
        }
        times.sort()
        return (count, times[0], times[times.count / 2])
    }

    static func line(_ name: String, _ timed: (count: Int64, min: Double, median: Double), floor: Double) -> String {
        name.padding(toLength: 48, withPad: " ", startingAt: 0)
            + String(format: " %9lld %9.1f %9.1f %7.2f", timed.count, timed.min, timed.median, timed.median / max(floor, 1e-9))
    }
}
