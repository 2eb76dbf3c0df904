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
                #expect(report.coordinator.contains("audit_log") && !report.coordinator.contains("campaign_chunks"))
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

    /// A cluster converted before migration 0036 takes it and every later one: its columns and
    /// checks on reference tables (a check in the same ADD COLUMN is refused on a cluster), one
    /// key per app that existed, the same on every node, and the hash index rebuilt.
    @Test func migration0036AndLaterApplyToAClusterConvertedBeforeThem() async throws {
        try await CitusTestDatabase.with(migratedBefore: "0036") { url in
            try await TestDatabase.withClient(url) { client in
                let logger = TestDatabase.logger
                let (all, conversion) = try await Self.convertBefore("0036", client)
                #expect(try await conversion.isConverted())
                _ = try await client.query(
                    """
                    INSERT INTO apps (bundle_id, team_id, default_environment)
                    VALUES ('com.example.one', 'TEAM123456', 'production'), ('com.example.two', 'TEAM123456', 'production')
                    """, logger: logger
                ).collect()

                let applied = try await MigrationRunner(client: client, migrations: all, logger: logger).migrate()
                #expect(applied == all.filter { $0.name >= "0036" }.map(\.name))
                let keys = try await client.query(
                    "SELECT string_agg(encode(apns_id_key, 'hex'), ',' ORDER BY id) FROM apps", logger: logger
                ).collect().first?.decode(String?.self)
                let coordinator = try #require(keys ?? nil)
                let parts = coordinator.split(separator: ",")
                #expect(parts.count == 2 && parts.allSatisfy { $0.count == 32 } && parts[0] != parts[1])
                let onWorkers = try await client.query(
                    """
                    SELECT result FROM run_command_on_workers(
                        $$SELECT string_agg(encode(apns_id_key, 'hex'), ',' ORDER BY id) FROM apps$$)
                    """, logger: logger
                ).collect().map { try $0.decode(String.self) }
                #expect(onWorkers.count == 2 && onWorkers.allSatisfy { $0 == coordinator }, "\(onWorkers) vs \(coordinator)")
                let indexes = try await client.query(
                    "SELECT indexdef FROM pg_indexes WHERE tablename LIKE 'deliveries%' AND indexdef LIKE '%USING hash%'", logger: logger
                ).collect().map { try $0.decode(String.self) }
                #expect(!indexes.isEmpty && indexes.allSatisfy { $0.contains("<> '8'::text") }, "\(indexes)")
            }
        }
    }

    /// A cluster converted before migration 0040 kept the chunk tables on the coordinator. The
    /// migration gives their rows parts, and the next conversion moves them (rows, counters and
    /// keys) to the workers beside the ledger, touching no other table's keys; a campaign runs on
    /// them afterwards.
    @Test func migration0040AndTheNextConversionMoveTheChunksOfAConvertedCluster() async throws {
        try await CitusTestDatabase.with(migratedBefore: "0040") { url in
            try await TestDatabase.withClient(url) { client in
                let logger = TestDatabase.logger
                let (all, conversion) = try await Self.convertBefore("0040", client)
                // A campaign half sent before the upgrade: 16 chunks, counters on two of them.
                let app = try await client.query(
                    """
                    INSERT INTO apps (bundle_id, team_id, default_environment)
                    VALUES ('com.example.moved', 'TEAM123456', 'production') RETURNING id
                    """, logger: logger
                ).collect().first!.decode(Int64.self)
                let campaign = try await client.query(
                    "INSERT INTO campaigns (app_id, name, template_name) VALUES (\(app), 'before', 'welcome') RETURNING id",
                    logger: logger
                ).collect().first!.decode(Int64.self)
                try await client.query(
                    """
                    INSERT INTO campaign_chunks (app_id, campaign_id, chunk, bucket_from, bucket_to, accepted, cursor)
                    SELECT \(app), \(campaign), n, n * 16, n * 16 + 15, n, n * 100 FROM generate_series(0, 15) AS n
                    """, logger: logger)
                for (table, column, value) in [
                    ("campaign_chunk_variants", "variant", "0"), ("campaign_chunk_languages", "language", "'fr'"),
                    ("campaign_chunk_minutes", "minute", "date_trunc('minute', now())"),
                ] {
                    try await client.query(
                        PostgresQuery(
                            unsafeSQL: """
                                INSERT INTO \(table) (app_id, campaign_id, chunk, \(column), accepted)
                                SELECT \(app), \(campaign), n, \(value), n FROM generate_series(3, 4) AS n
                                """), logger: logger)
                }

                let applied = try await MigrationRunner(client: client, migrations: all, logger: logger).migrate()
                #expect(applied == all.filter { $0.name >= "0040" }.map(\.name))
                #expect(try await !conversion.isConverted())
                let report = try await conversion.convert(after: MigrationRunner(client: client, migrations: all, logger: logger))
                #expect(
                    report.distributed == ["campaign_chunks", "campaign_chunk_variants", "campaign_chunk_languages", "campaign_chunk_minutes"])
                #expect(report.reference.isEmpty && report.coordinator.isEmpty && report.foreignKeysLeftOut.isEmpty)
                // The counters' keys to their chunk and the chunks' to campaigns, nothing else.
                #expect(report.foreignKeysRestored == 4)
                #expect(try await conversion.isConverted())
                #expect(try await conversion.convert(after: MigrationRunner(client: client, migrations: all, logger: logger)).isEmpty)

                func number(_ sql: String) async throws -> Int64 {
                    try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first!.decode(Int64.self)
                }
                #expect(try await number("SELECT sum(accepted)::bigint FROM campaign_chunks") == 120)
                #expect(try await number("SELECT count(*) FROM campaign_chunks WHERE part = herald_part(bucket_from)") == 16)
                for table in ["campaign_chunk_variants", "campaign_chunk_languages", "campaign_chunk_minutes"] {
                    #expect(try await number("SELECT sum(accepted)::bigint FROM \(table)") == 7, "\(table)")
                }
                // Co-located with devices: one shard group, so a chunk's counters and ledger rows
                // share a worker.
                #expect(
                    try await number(
                        """
                        SELECT count(DISTINCT colocationid) FROM pg_dist_partition
                        WHERE logicalrelid::text IN ('devices', 'deliveries', 'campaign_chunks', 'campaign_chunk_minutes')
                          AND partmethod = 'h'
                        """) == 1)
                #expect(
                    try await number(
                        """
                        SELECT count(*) FROM pg_constraint
                        WHERE contype = 'f' AND conname IN ('campaign_chunk_variants_chunk_fkey', 'campaign_chunk_languages_chunk_fkey',
                                                            'campaign_chunk_minutes_chunk_fkey', 'campaign_chunks_campaign_id_fkey')
                        """) == 4)
            }
            try await StoreFixture.with(url: url) { f in
                _ = try await f.registerDevices(1...50)
                let campaign = try await f.runningCampaign()
                let (seen, _) = try await f.run(campaign)
                #expect(Set(seen).count == 50 && seen.count == 50)
                let counted = try #require(try await f.campaigns.get(id: campaign.id)).counters
                #expect(counted.accepted == 50 && counted.addsUp)
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

    /// Converts a database migrated up to `migration` (not included), as the Herald of then
    /// would; returns every migration and the conversion.
    static func convertBefore(
        _ migration: String, _ client: PostgresClient
    ) async throws -> (all: [Migration], conversion: CitusConversion) {
        let all = try Migration.load(from: TestDatabase.migrationsDirectory)
        let earlier = MigrationRunner(client: client, migrations: all.filter { $0.name < migration }, logger: TestDatabase.logger)
        let conversion = CitusConversion(client: client, logger: TestDatabase.logger)
        _ = try await conversion.convert(after: earlier)
        return (all, conversion)
    }

    static func counts(_ client: PostgresClient) async throws -> [Int64] {
        var counts = [Int64]()
        for table in ["devices", "deliveries", "live_activity_start_tokens", "live_activity_tokens", "campaigns", "audit_log"] {
            counts.append(try await client.query("SELECT count(*) FROM \(unescaped: table)").collect().first!.decode(Int64.self))
        }
        return counts
    }
}
