import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// The ledger by month (migration 0030, docs/scaling.md): campaign IDs come in blocks of a
/// million, the first campaign of a month starts a block, each block is a partition of
/// `deliveries`, and retention drops a block whole once its campaigns are past their period.
@Suite struct LedgerPartitionTests {
    struct Block: Equatable {
        var name: String
        var first: Int64?
        var end: Int64
    }

    static func blocks(_ f: StoreFixture) async throws -> [Block] {
        try await f.client.query("SELECT name, first_id, end_id FROM herald_ledger_blocks()").collect()
            .map {
                let (name, first, end) = try $0.decode((String, Int64?, Int64).self)
                return Block(name: name, first: first, end: end)
            }
    }

    /// The partition each of `campaign`'s ledger rows lies in.
    static func partitions(_ f: StoreFixture, _ campaign: Int64) async throws -> Set<String> {
        Set(
            // On a Citus cluster a row lies in a shard of its partition, named `<partition>_<shard ID>`.
            try await f.client.query(
                """
                SELECT DISTINCT regexp_replace(tableoid::regclass::text, '^(deliveries_[a-z0-9]+)_[0-9]{6,}$', '\\1')
                FROM deliveries WHERE campaign_id = \(campaign)
                """
            )
            .collect().map { try $0.decode(String.self) })
    }

    /// Moves a campaign's creation (and its finish, when given) into the past.
    static func backdate(_ f: StoreFixture, _ campaign: Int64, createdDaysAgo: Int, finishedDaysAgo: Int? = nil) async throws {
        // The moments computed here: a Citus cluster refuses now() inside coalesce in a write to
        // a reference table.
        func daysAgo(_ days: Int) -> Date { Date().addingTimeInterval(-Double(days) * 86_400) }
        _ = try await f.client.query("UPDATE campaigns SET created_at = \(daysAgo(createdDaysAgo)) WHERE id = \(campaign)").collect()
        if let finishedDaysAgo {
            _ = try await f.client.query("UPDATE campaigns SET finished_at = \(daysAgo(finishedDaysAgo)) WHERE id = \(campaign)").collect()
        }
    }

    @Test(arguments: CitusTestDatabase.engines)
    func theFirstCampaignOfAMonthStartsABlockAndItsLedgerLandsInItsPartition(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...20)
            // A new database: the first block holds IDs below a million, the next one is ready.
            #expect(
                try await Self.blocks(f) == [
                    Block(name: "deliveries_0", first: nil, end: 1_000_000),
                    Block(name: "deliveries_1000000", first: 1_000_000, end: 2_000_000),
                ])
            let old = try await f.runningCampaign()
            try await f.run(old)
            #expect(old.id < 1_000_000)
            #expect(try await Self.partitions(f, old.id) == ["deliveries_0"])

            // Within the month the IDs go on; once the newest campaign is from an earlier month,
            // the next one starts the next block.
            let sameMonth = try await f.campaigns.create(f.draft("Same month"), actor: "test")
            #expect(sameMonth.id == old.id + 1)
            try await Self.backdate(f, sameMonth.id, createdDaysAgo: 40)
            let next = try await f.runningCampaign()
            #expect(next.id == 1_000_000)
            try await f.run(next)
            #expect(try await Self.partitions(f, next.id) == ["deliveries_1000000"])
            #expect(try await f.campaigns.create(f.draft("After"), actor: "test").id == 1_000_001)

            // A block whose partition is missing is made when it is reached.
            _ = try await f.client.query("UPDATE campaigns SET created_at = now() - interval '40 days' WHERE id >= 1000000").collect()
            #expect(try await f.campaigns.create(f.draft("Later"), actor: "test").id == 2_000_000)
            #expect(try await Self.blocks(f).map(\.name) == ["deliveries_0", "deliveries_1000000", "deliveries_2000000"])
            // Every device has one row in each campaign that ran, and nothing fell to the default.
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 40)
            #expect(try await f.count("SELECT count(*) FROM deliveries_default") == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines)
    func retentionDropsAMonthWholeOnlyWhenNoneOfItsCampaignsMayKeepRows(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...15)
            let retention = PostgresRetention(client: f.client, logger: TestDatabase.logger)
            let old = try await f.runningCampaign()
            try await f.run(old)
            let draft = try await f.campaigns.create(f.draft("Never sent"), actor: "test")
            try await Self.backdate(f, draft.id, createdDaysAgo: 400)
            try await Self.backdate(f, old.id, createdDaysAgo: 400)
            let recent = try await f.runningCampaign()
            try await f.run(recent)
            #expect(recent.id == 1_000_000)

            // The old campaign is unfinished: its month stays, and nothing of it goes.
            _ = try await f.client.query("UPDATE campaigns SET finished_at = NULL WHERE id = \(old.id)").collect()
            let policy = RetentionPolicy()
            let kept = try #require(try await retention.purge(policy, now: Date(), batchSize: 4, dryRun: false, actor: "test"))
            #expect(kept.ledgerPartitions == 0 && kept.deliveries == 0)
            #expect(try await Self.blocks(f).first?.name == "deliveries_0")

            // Finished 200 days ago: a dry run counts the month and changes nothing; the run drops
            // it whole (the draft without rows does not hold it) and marks the campaign purged.
            try await Self.backdate(f, old.id, createdDaysAgo: 400, finishedDaysAgo: 200)
            let dry = try #require(try await retention.purge(policy, now: Date(), batchSize: 4, dryRun: true, actor: "test"))
            #expect(dry.ledgerPartitions == 1 && dry.deliveries == 15 && dry.campaigns == 1)
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 30)
            let done = try #require(try await retention.purge(policy, now: Date(), batchSize: 4, dryRun: false, actor: "test"))
            #expect(done == dry)
            #expect(try await Self.blocks(f).map(\.name) == ["deliveries_1000000"])
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 15)
            #expect(try await f.count("SELECT count(*) FROM campaigns WHERE id = \(old.id) AND deliveries_purged_at IS NOT NULL") == 1)
            #expect(
                try await f.count("SELECT count(*) FROM audit_log WHERE action = 'retention.run' AND details->'deleted'->>'ledgerPartitions' = '1'")
                    == 1)

            // The draft of the dropped month, sent now, is recorded in the default partition, and
            // retention deletes those rows the batch way once it is past its period.
            _ = try await f.campaigns.transition(id: draft.id, event: .schedule, actor: "test")
            let started = try #require(try await f.work.startDueCampaigns(limit: 1, actor: "scheduler").first)
            try await f.run(started)
            #expect(try await Self.partitions(f, draft.id) == ["deliveries_default"])
            try await Self.backdate(f, draft.id, createdDaysAgo: 400, finishedDaysAgo: 200)
            let late = try #require(try await retention.purge(policy, now: Date(), batchSize: 4, dryRun: false, actor: "test"))
            #expect(late.ledgerPartitions == 0 && late.deliveries == 15 && late.campaigns == 1, "\(late)")
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 15)
        }
    }

    @Test func anExistingLedgerBecomesTheFirstPartitionAsItIs() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                try await TestDatabase.migrate(client, before: "0030")
                _ = try await client.query(
                    """
                    WITH app AS (INSERT INTO apps (bundle_id, team_id, default_environment) VALUES ('com.example.ledger', 'ABCDE12345', 'sandbox') RETURNING id),
                         campaign AS (INSERT INTO campaigns (app_id, name, template_name) SELECT id, 'Old', 'welcome' FROM app RETURNING id, app_id)
                    INSERT INTO deliveries (app_id, campaign_id, device_id, outcome, apns_id)
                    SELECT app_id, id, g, 'accepted', gen_random_uuid() FROM campaign, generate_series(1, 500) AS g
                    """
                ).collect()
                try await TestDatabase.migrate(client)
                let rows = try await client.query("SELECT tableoid::regclass::text, count(*) FROM deliveries GROUP BY 1").collect()
                    .map { try $0.decode((String, Int64).self) }
                #expect(rows.count == 1 && rows.first?.0 == "deliveries_0" && rows.first?.1 == 500)
                // The old table's keys and indexes now serve the partitioned ledger.
                let adopted = try await client.query(
                    """
                    SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE c.relname LIKE 'deliveries_0_%' AND c.relkind = 'i'
                    """
                ).collect().first!.decode(Int64.self)
                #expect(adopted == 5)
                _ = try await client.query(
                    """
                    INSERT INTO deliveries (app_id, campaign_id, device_id, part, outcome)
                    SELECT app_id, campaign_id, device_id, part, 'failed' FROM deliveries WHERE device_id <= 10
                    ON CONFLICT (app_id, campaign_id, device_id, part) DO UPDATE SET outcome = excluded.outcome
                    """
                ).collect()
                let failed = try await client.query("SELECT count(*) FROM deliveries WHERE outcome = 'failed'").collect()
                    .first!.decode(Int64.self)
                #expect(failed == 10)
            }
        }
    }
}
