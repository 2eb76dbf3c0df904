import APNSCore
import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// The worker drill (docs/scaling.md, "When a worker stops"): a Citus worker stopped in
/// mid-campaign and started again. Sends to its shards stop and resume when it is back, the
/// other worker's parts carry on meanwhile, the API answers 503 with `Retry-After` for what
/// needs the stopped worker and serves the rest, and every device ends with exactly one outcome,
/// none sent twice (the answers of a batch whose record failed are kept and recorded later).
@Suite(.serialized, .enabled(if: CitusTestDatabase.directory != nil, "needs a Citus cluster (HERALD_TEST_CITUS_DIR)"))
struct WorkerRestartTests {
    static let devices = 6_000

    @Test func aWorkerStoppedMidCampaignHoldsItsPartsUntilItIsBackAndNothingIsLostOrSentTwice() async throws {
        try await EngineHarness.with(adjust: { $0.engineLeaseSeconds = 4 }, onCluster: true) { h in
            try await h.register(0..<Self.devices) { _ in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let stopped = try await Self.parts(onWorker: 2, h)
            let running = Set(0..<16).subtracting(stopped)
            try #require(!stopped.isEmpty && !running.isEmpty, "the parts lie on one worker: \(stopped)")
            // Slow enough that the stop falls in mid-campaign: about 15 s at 400 a second.
            let campaign = try await h.scheduledCampaign(rateLimit: 400)

            try await h.withAPI(engine: true) { api in
                try await h.waitFor("some outcomes before the stop", timeout: .seconds(300)) {
                    try await Self.recorded(h, campaign, parts: Set(0..<16)) >= 600
                }
                try await CitusTestDatabase.ops(["stop-worker", "2"])
                do {
                    let atStop = try await Self.recorded(h, campaign, parts: running)
                    // The other worker's parts carry on without it.
                    try await h.waitFor("the running worker's parts to go on", timeout: .seconds(120)) {
                        try await Self.recorded(h, campaign, parts: running) >= atStop + 400
                    }
                    // What needs the stopped worker is 503 with Retry-After; the rest is served.
                    let path = "/v1/apps/\(EngineHarness.bundleID)/devices"
                    let away = try await api.request(.put, "\(path)/\(Self.token(inPartOf: stopped))", key: api.appKey, body: "{}")
                    #expect(away.status == .serviceUnavailable, "\(away.body)")
                    #expect(away.headers[.retryAfter] != nil)
                    #expect(away.body.contains("database-unavailable"), "\(away.body)")
                    let here = try await api.request(.put, "\(path)/\(Self.token(inPartOf: running))", key: api.appKey, body: "{}")
                    #expect(here.status == .created, "\(here.body)")
                    let shown = try await api.request(.get, "/v1/campaigns/\(campaign.publicID.uuidString.lowercased())", key: api.marketingKey)
                    #expect(shown.status == .ok, "\(shown.body)")
                    // Its counters leave out the stopped worker's parts, and say so.
                    #expect(shown.body.filter { $0 != " " }.contains("\"partial\":true"), "\(shown.body)")
                    #expect(try await h.campaign(campaign.id).state == .running)
                } catch {
                    try? await CitusTestDatabase.ops(["start-worker", "2"])
                    throw error
                }
                try await CitusTestDatabase.ops(["start-worker", "2"])
                try await h.waitFor("the campaign to complete once the worker is back", timeout: .seconds(420)) {
                    try await h.campaign(campaign.id).state == .completed
                }
            }

            // None sent twice: a batch in flight at the stop, whose record failed, had its answers
            // kept by the instance and recorded when it claimed the chunk again.
            try await h.expectEachDeviceAcceptedOnce(campaign, devices: Self.devices, resentAtMost: 0)
            let kept = h.logs.text.components(separatedBy: "are kept, to record").count - 1
            let given = h.logs.text.components(separatedBy: "giving it back for").count - 1
            print("worker drill: \(kept) batches kept unrecorded, \(given) chunks given back with a hold")
        }
    }

    /// The parts (0-15) whose shard of `devices` lies on worker `n` (`ops/citus`'s folders).
    static func parts(onWorker n: Int, _ h: EngineHarness) async throws -> Set<Int> {
        let directory = try #require(CitusTestDatabase.directory)
        let portText = try String(contentsOfFile: "\(directory)/worker\(n)/port", encoding: .utf8)
        let port = try #require(Int32(portText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let rows = try await h.store.client.query(
            """
            SELECT b / 16 FROM generate_series(0, 255, 16) AS b
            JOIN pg_dist_shard_placement p
              ON p.shardid = get_shard_id_for_distribution_column('devices', herald_part(b))
            WHERE p.nodeport = \(port)
            """
        ).collect()
        return Set(try rows.map { Int(try $0.decode(Int32.self)) })
    }

    /// Ledger rows of the campaign in `parts`: a query that reads only those parts' shards, so
    /// it answers while the other worker is stopped.
    static func recorded(_ h: EngineHarness, _ campaign: Campaign, parts: Set<Int>) async throws -> Int {
        let labels = try await h.store.client.query(
            "SELECT herald_part(p * 16) FROM unnest(\(parts.map { Int32($0) })::int[]) AS p"
        ).collect().map { try $0.decode(Int32.self) }
        let rows = try await h.store.client.query(
            "SELECT count(*) FROM deliveries WHERE campaign_id = \(campaign.id) AND part = ANY(\(labels))"
        ).collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    /// A new device token (hex) whose part, the first byte of its SHA-256 over sixteen, is in `parts`.
    static func token(inPartOf parts: Set<Int>) -> String {
        while true {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let first = Array(SHA256.hash(data: bytes))[0]
            if parts.contains(Int(first) / 16) { return bytes.map { String(format: "%02x", $0) }.joined() }
        }
    }
}
