import APNSCore
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore
import PostgresNIO

/// `herald bench campaign --events N`: after the campaign, the app reports N events (80 % opens
/// of accepted notifications, 20 % conversions by token) through the events repository, 1,000 a
/// call as the API takes them; then the same rows go into a plain copy of the table (no
/// attribution reads, no duplicate check beyond the key) as the ceiling; then the report is read.
enum BenchEvents {
    static let batch = 1000

    static func measure(store: Store, app: App, campaign: Campaign, count: Int) async throws {
        let opens = count * 4 / 5
        // The ledger's first accepted rows (its own index), then their devices' tokens by ID.
        let rows = try await store.client.query(
            """
            SELECT device_id, apns_id FROM deliveries
            WHERE app_id = \(app.id) AND campaign_id = \(campaign.id) AND outcome = 'accepted'
            ORDER BY device_id LIMIT \(count)
            """)
        var apnsIDs = [Int64: UUID]()
        for try await (device, apnsID) in rows.decode((Int64, UUID).self) { apnsIDs[device] = apnsID }
        let tokens = try await store.client.query(
            "SELECT id, token FROM devices WHERE app_id = \(app.id) AND id = ANY(\(Array(apnsIDs.keys))::bigint[])")
        var sent = [(UUID, DeviceToken)]()
        for try await (device, token) in tokens.decode((Int64, ByteBuffer).self) {
            if let apnsID = apnsIDs[device] { sent.append((apnsID, try DeviceToken(bytes: Array(buffer: token)))) }
        }
        guard !sent.isEmpty else { throw CLIError("--events: the campaign accepted no notification") }
        let now = Date()
        let events = (0..<count).map { n in
            let (apnsID, token) = sent[n % sent.count]
            return n < opens
                ? AppEvent(kind: .opened(apnsID: apnsID), occurredAt: now)
                : AppEvent(kind: .converted(name: "purchase", value: 9.99), occurredAt: now, token: token, eventID: "bench-\(n)")
        }

        let start = ContinuousClock.now
        var stored = 0
        var attributed = 0
        for offset in stride(from: 0, to: events.count, by: batch) {
            let receipt = try await store.events.record(
                appID: app.id, events: Array(events[offset..<min(offset + batch, events.count)]))
            stored += receipt.stored
            attributed += receipt.attributed
        }
        let elapsed = ContinuousClock.now - start
        let ceiling = try await plainInsert(events, store: store, app: app)
        print(
            "events: \(events.count) reported in \(BenchCampaignCommand.format(elapsed)) "
                + "(\(BenchCampaignCommand.rate(events.count, elapsed)) events/s; stored \(stored), attributed \(attributed)); "
                + "plain INSERT of the same rows \(BenchCampaignCommand.format(ceiling)), "
                + String(format: "%.0f%%", BenchCampaignCommand.seconds(ceiling) / BenchCampaignCommand.seconds(elapsed) * 100)
                + " of Herald's time")

        var times = [Duration]()
        var report: CampaignReport?
        for _ in 0..<5 {
            let begin = ContinuousClock.now
            guard let current = try await store.campaigns.get(id: campaign.id) else { break }
            report = CampaignReport(campaign: current, events: try await store.events.totals(campaignID: campaign.id))
            times.append(ContinuousClock.now - begin)
        }
        let opened = report?.variants.reduce(0) { $0 + ($1.opened?.count ?? 0) } ?? 0
        print(
            "report (counters, events by variant, tests): median \(milliseconds(times.sorted()[times.count / 2])), "
                + "slowest \(milliseconds(times.max() ?? .zero)) over 5 reads; \(opened) opens, "
                + "\(report?.comparisons.count ?? 0) comparisons")
    }

    /// The same rows into a temporary copy of `events`, batch by batch: what storing costs
    /// without attributing.
    static func plainInsert(_ events: [AppEvent], store: Store, app: App) async throws -> Duration {
        try await store.client.withConnection { connection in
            try await connection.query("CREATE TEMPORARY TABLE events_ceiling (LIKE events INCLUDING ALL)", logger: connection.logger)
            let start = ContinuousClock.now
            for offset in stride(from: 0, to: events.count, by: batch) {
                let slice = events[offset..<min(offset + batch, events.count)]
                let kinds = slice.map(\.kind.name)
                let keys = slice.enumerated().map { index, _ in
                    var bytes = [UInt8](repeating: 0, count: 32)
                    withUnsafeBytes(of: UInt64(offset + index).bigEndian) { bytes.replaceSubrange(0..<8, with: $0) }
                    return ByteBuffer(bytes: bytes)
                }
                let times = slice.map(\.occurredAt)
                let none = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
                let apnsIDs = slice.map { event -> UUID in
                    if case .opened(let id) = event.kind { return id }
                    return none
                }
                _ = try await connection.query(
                    """
                    INSERT INTO events_ceiling (app_id, kind, identity, occurred_at, apns_id)
                    SELECT \(app.id), kind, identity, occurred_at, NULLIF(apns_id, \(none))
                    FROM unnest(\(kinds)::text[], \(keys)::bytea[], \(times)::timestamptz[], \(apnsIDs)::uuid[])
                        AS t(kind, identity, occurred_at, apns_id)
                    ON CONFLICT (app_id, identity) DO NOTHING
                    """, logger: connection.logger)
            }
            let elapsed = ContinuousClock.now - start
            try await connection.query("DROP TABLE events_ceiling", logger: connection.logger)
            return elapsed
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f ms", BenchCampaignCommand.seconds(duration) * 1000)
    }
}
