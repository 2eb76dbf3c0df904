import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// `herald migrate` on a Citus coordinator (docs/scaling.md, "Moving to a cluster"): a database
/// with devices, a ledger and Live Activity tokens is distributed in place, loses nothing, keeps
/// its IDs going where they were, and runs a campaign's claims, reads and writes afterwards.
/// Runs when `HERALD_TEST_CITUS_URL` names a cluster (`ops/test` starts one when Citus is
/// installed).
@Suite(.serialized, .enabled(if: CitusTestDatabase.isAvailable, "HERALD_TEST_CITUS_URL names no Citus cluster"))
struct CitusConversionTests {
    static func runner(_ client: PostgresClient) throws -> MigrationRunner {
        MigrationRunner(
            client: client, migrations: try Migration.load(from: TestDatabase.migrationsDirectory), logger: TestDatabase.logger)
    }

    @Test func aPopulatedDatabaseIsDistributedInPlaceAndKeepsWorking() async throws {
        try await CitusTestDatabase.with(converted: false) { url in
            try await StoreFixture.with(url: url) { f in
                let devices = try await f.registerDevices(1...300)
                let first = try await f.runningCampaign()
                try await f.run(first)
                let activities = PostgresLiveActivityRepository(client: f.client, logger: TestDatabase.logger)
                for n in 1...20 {
                    #expect(
                        try await activities.registerStartToken(
                            appID: f.app.id, device: StoreFixture.token(n), attributesType: "Score", token: StoreFixture.token(1000 + n)))
                    _ = try await activities.registerUpdateToken(
                        appID: f.app.id, activityID: "game-1", device: StoreFixture.token(n), token: StoreFixture.token(2000 + n),
                        now: Date())
                }
                // The newest device goes: its ID must not be given again.
                #expect(try await f.devices.delete(appID: f.app.id, token: StoreFixture.token(300)))
                let before = try await Self.counts(f.client)
                let keysBefore = try await f.count(
                    "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conparentid = 0")

                let conversion = CitusConversion(client: f.client, logger: TestDatabase.logger)
                #expect(try await !conversion.isConverted())
                let report = try await conversion.convert(after: try Self.runner(f.client))
                #expect(report.distributed == CitusLayout.byPart)
                #expect(report.reference == CitusLayout.reference)
                #expect(report.coordinator.contains("campaign_chunks") && report.coordinator.contains("audit_log"))
                #expect(report.foreignKeysLeftOut == ["live_activity_tokens_app_id_activity_id_fkey"])
                #expect(Int64(report.foreignKeysRestored) == keysBefore - 1)
                #expect(try await conversion.isConverted())
                #expect(try await Self.counts(f.client) == before)

                // Every part alone in its shard, the shards spread evenly over the workers.
                let placement = try await f.client.query(
                    """
                    SELECT p.groupid, count(*) FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
                    WHERE s.logicalrelid = 'devices'::regclass GROUP BY 1
                    """
                ).collect().map { try $0.decode((Int32, Int64).self).1 }
                #expect(placement.reduce(0, +) == 16 && placement.max()! - placement.min()! <= 1, "\(placement)")
                let parts = try await f.count(
                    "SELECT count(DISTINCT get_shard_id_for_distribution_column('devices', herald_part(b))) FROM generate_series(0, 255) b")
                #expect(parts == 16)

                // IDs go on past the largest ever given, and the audit log (whose identity Citus
                // rebuilt) takes new rows.
                let next = try await f.devices.register(
                    appID: f.app.id, token: StoreFixture.token(301), registration: StoreFixture.registration()
                ).device
                #expect(next.id > devices.last!.id)
                _ = try await f.apps.add(
                    try NewApp(
                        bundleID: "com.example.after", teamID: "TEAM123456", keyID: "KEY1234567", signingKeyPEM: TestSigningKey.pem(),
                        defaultEnvironment: .sandbox),
                    actor: "test")

                // A campaign on the cluster: claims, chunk reads by part, the ledger and its counters.
                let second = try await f.runningCampaign()
                let (seen, _) = try await f.run(second)
                #expect(Set(seen).count == 300 && seen.count == 300)
                let counted = try #require(try await f.campaigns.get(id: second.id)).counters
                #expect(counted.accepted == 300 && counted.addsUp)
                #expect(try await f.count("SELECT count(*) FROM deliveries WHERE campaign_id = \(second.id)") == 300)
                // A device's start tokens still go with it.
                #expect(try await f.devices.delete(appID: f.app.id, token: StoreFixture.token(1)))
                #expect(try await f.count("SELECT count(*) FROM live_activity_start_tokens") == 19)

                // A second run finds nothing to do.
                #expect(try await conversion.convert(after: try Self.runner(f.client)).isEmpty)
            }
        }
    }

    @Test func aWorkerThatCannotBeReachedStopsTheConversionBeforeAnythingChanges() async throws {
        try await CitusTestDatabase.with(converted: false) { url in
            try await TestDatabase.withClient(url) { client in
                try await CitusTestDatabase.ops(["stop-worker", "2"])
                do {
                    await #expect {
                        _ = try await CitusConversion(client: client, logger: TestDatabase.logger).convert(after: try Self.runner(client))
                    } throws: { error in
                        guard case .unreachable(let pairs) = error as? CitusConversionError else { return false }
                        return !pairs.isEmpty
                    }
                    let placed = try await client.query(
                        "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text NOT LIKE 'pg_%'"
                    ).collect().first!.decode(Int64.self)
                    #expect(placed == 0)
                    let keys = try await client.query(
                        "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
                    ).collect().first!.decode(Int64.self)
                    #expect(keys > 40)
                } catch {
                    try? await CitusTestDatabase.ops(["start-worker", "2"])
                    throw error
                }
                try await CitusTestDatabase.ops(["start-worker", "2"])
            }
        }
    }

    static func counts(_ client: PostgresClient) async throws -> [Int64] {
        var counts = [Int64]()
        for table in ["devices", "deliveries", "live_activity_start_tokens", "live_activity_tokens", "campaigns", "audit_log"] {
            counts.append(try await client.query("SELECT count(*) FROM \(unescaped: table)").collect().first!.decode(Int64.self))
        }
        return counts
    }
}
