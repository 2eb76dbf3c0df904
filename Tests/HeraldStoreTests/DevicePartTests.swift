import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Parts (migration 0029, docs/scaling.md "Parts"): each device's part is its bucket's sixteenth,
/// stored as a label whose int4 hash lies in its own sixteenth of the hash range, so a Citus
/// table distributed on it with 16 shards holds one part per shard.
@Suite struct DevicePartTests {
    @Test(arguments: CitusTestDatabase.engines) func eachPartsLabelHashesIntoItsOwnSixteenthOfTheRange(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let rows = try await f.client.query(
                """
                SELECT b / 16, herald_part(b), ((hashint4(herald_part(b))::bigint + 2147483648) / 268435456)::integer
                FROM generate_series(0, 255) AS b
                """
            ).collect().map { try $0.decode((Int32, Int32, Int32).self) }
            #expect(rows.count == 256)
            // Every bucket of a part has the part's label, and part n's label hashes into the n-th sixteenth.
            for (part, _, shard) in rows { #expect(part == shard, "part \(part) hashes into sixteenth \(shard)") }
            let labels = Dictionary(grouping: rows, by: \.0).mapValues { Set($0.map(\.1)) }
            #expect(labels.count == 16 && labels.values.allSatisfy { $0.count == 1 })
            #expect(Set(labels.values.map { $0.first! }).count == 16, "two parts share a label")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aRegisteredOrImportedDeviceCarriesItsBucketsPart(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(1), registration: StoreFixture.registration())
            _ = try await f.devices.importBatch(
                appID: f.app.id,
                items: (2...40).map { DeviceImportItem(token: StoreFixture.token($0), registration: StoreFixture.registration()) })
            let wrong = try await f.client.query(
                "SELECT count(*) FROM devices WHERE app_id = \(f.app.id) AND part <> herald_part(get_byte(sha256(token), 0))"
            ).collect().first!.decode(Int64.self)
            #expect(wrong == 0)
            // The database refuses a part that is not the bucket's.
            await #expect(throws: PSQLError.self) {
                try await f.client.query(
                    "UPDATE devices SET part = part + 1 WHERE app_id = \(f.app.id)"
                ).collect()
            }
        }
    }

    /// A lookup by token names the part the token's bucket is in (on a cluster, one shard): each
    /// of 40 devices, spread over the parts, is found alone and among the others, its history is
    /// read, and a delete by token removes that device and no other.
    @Test(arguments: CitusTestDatabase.engines) func lookupsByTokenFindTheirDeviceInItsPart(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let tokens = (1...40).map { StoreFixture.token($0) }
            for token in tokens {
                _ = try await f.devices.register(appID: f.app.id, token: token, registration: StoreFixture.registration())
            }
            let parts = try await f.client.query("SELECT count(DISTINCT part) FROM devices WHERE app_id = \(f.app.id)")
                .collect().first!.decode(Int64.self)
            #expect(parts >= 10, "40 tokens fell in only \(parts) parts")
            for token in tokens {
                #expect(try await f.devices.find(appID: f.app.id, token: token)?.token == token)
            }
            let unknown = StoreFixture.token(99)
            let found = try await f.devices.find(appID: f.app.id, tokens: tokens + [unknown])
            #expect(Set(found.keys) == Set(tokens))
            #expect(try await f.devices.find(appID: f.app.id, token: unknown) == nil)
            let ledger = PostgresLedgerRepository(client: f.client, logger: TestDatabase.logger)
            #expect(try await ledger.history(appID: f.app.id, token: tokens[7]).device?.token == tokens[7])
            for token in tokens.prefix(10) {
                #expect(try await f.devices.delete(appID: f.app.id, token: token))
                #expect(try await !f.devices.delete(appID: f.app.id, token: token))
            }
            let left = try await f.devices.find(appID: f.app.id, tokens: tokens)
            #expect(Set(left.keys) == Set(tokens.dropFirst(10)))
            guard onCluster, let url = CitusTestDatabase.url else { return }
            // On the cluster each of these is one shard's statement: over a connection where
            // Citus refuses any statement of several shards, they still work.
            var configuration = try DatabaseURL(url).clientConfiguration(maxConnections: 2)
            configuration.options.additionalStartupParameters.append(("citus.multi_task_query_log_level", "error"))
            let strict = PostgresClient(configuration: configuration, backgroundLogger: TestDatabase.logger)
            try await strict.whileRunning { () async throws in
                await #expect(throws: PSQLError.self, "a statement over all shards is refused") {
                    try await strict.query("SELECT count(*) FROM devices WHERE app_id = \(f.app.id)").collect()
                }
                let devices = PostgresDeviceRepository(client: strict, logger: TestDatabase.logger)
                let ledger = PostgresLedgerRepository(client: strict, logger: TestDatabase.logger)
                for token in tokens.dropFirst(10) {
                    #expect(try await devices.find(appID: f.app.id, token: token)?.token == token)
                }
                #expect(try await ledger.history(appID: f.app.id, token: tokens[20]).device?.token == tokens[20])
                #expect(try await devices.delete(appID: f.app.id, token: tokens[10]))
                // Registration (the upsert, new and again) names its part in SQL.
                let (_, created) = try await devices.register(
                    appID: f.app.id, token: StoreFixture.token(77), registration: StoreFixture.registration())
                let (_, again) = try await devices.register(
                    appID: f.app.id, token: StoreFixture.token(77), registration: StoreFixture.registration())
                #expect(created && !again)
            }
        }
    }

    @Test func aChunkInsideOnePartNamesItAndOneAcrossPartsDoesNot() {
        #expect(DeviceBucket.part(of: 0...15) == 0)
        #expect(DeviceBucket.part(of: 240...255) == 15)
        #expect(DeviceBucket.part(of: 32...39) == 2)
        #expect(DeviceBucket.part(of: 0...255) == nil)
        #expect(DeviceBucket.part(of: 15...16) == nil)
        for chunk in 0..<CampaignChunking.chunkCount {
            #expect(DeviceBucket.part(of: CampaignChunking.buckets(ofChunk: chunk)) == chunk)
        }
    }

    /// Migration 0032: the Live Activity rows that existed before it learn their device's part,
    /// every key that names a device holds the part, and deleting a device still takes its rows.
    @Test func liveActivityRowsLearnTheirDevicesPartAndStillGoWithIt() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                try await TestDatabase.migrate(client, before: "0032")
                _ = try await client.query(
                    """
                    WITH app AS (INSERT INTO apps (bundle_id, team_id, default_environment)
                                 VALUES ('com.example.parts', 'ABCDE12345', 'sandbox') RETURNING id),
                         device AS (INSERT INTO devices (app_id, token, environment, part)
                                    SELECT app.id, sha256(int4send(g)), 'production', herald_part(get_byte(sha256(sha256(int4send(g))), 0))
                                    FROM app, generate_series(1, 40) AS g RETURNING app_id, id),
                         activity AS (INSERT INTO live_activities (app_id, activity_id) SELECT id, 'game-1' FROM app RETURNING app_id),
                         starts AS (INSERT INTO live_activity_start_tokens (app_id, device_id, attributes_type, token)
                                    SELECT app_id, id, 'Score', '\\x0a0b0c0d'::bytea FROM device),
                         started AS (INSERT INTO live_activity_starts (app_id, device_id, attributes_type, activity_id)
                                     SELECT app_id, id, 'Score', 'game-1' FROM device)
                    INSERT INTO live_activity_tokens (app_id, activity_id, device_id, token)
                    SELECT device.app_id, 'game-1', device.id, '\\x0b0b0b0b'::bytea FROM device, activity
                    """
                ).collect()
                try await TestDatabase.migrate(client)
                for table in ["live_activity_start_tokens", "live_activity_starts", "live_activity_tokens"] {
                    let (rows, right) = try await client.query(
                        """
                        SELECT count(*), count(*) FILTER (WHERE x.part = d.part)
                        FROM \(unescaped: table) x JOIN devices d ON d.app_id = x.app_id AND d.id = x.device_id
                        """
                    ).collect().first!.decode((Int64, Int64).self)
                    #expect(rows == 40 && right == 40, "\(table)")
                }
                // Every key on these tables and on devices holds the part.
                let keys = try await client.query(
                    """
                    SELECT c.conrelid::regclass::text, bool_or(a.attname = 'part')
                    FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
                    WHERE c.contype IN ('p', 'u', 'f') AND c.conrelid IN ('devices'::regclass, 'live_activity_start_tokens'::regclass,
                          'live_activity_starts'::regclass, 'live_activity_tokens'::regclass)
                      AND NOT (c.contype = 'f' AND c.confrelid IN ('apps'::regclass, 'live_activities'::regclass))
                    GROUP BY c.oid, 1
                    """
                ).collect().map { try $0.decode((String, Bool).self) }
                #expect(keys.count >= 8 && keys.allSatisfy(\.1), "\(keys)")
                // A row that names another part than its device's is refused.
                await #expect(throws: PSQLError.self) {
                    try await client.query("UPDATE live_activity_tokens SET part = part + 1").collect()
                }
                _ = try await client.query("DELETE FROM devices WHERE id IN (SELECT id FROM devices ORDER BY id LIMIT 10)").collect()
                for table in ["live_activity_start_tokens", "live_activity_starts", "live_activity_tokens"] {
                    let left = try await client.query("SELECT count(*) FROM \(unescaped: table)").collect().first!.decode(Int64.self)
                    #expect(left == 30, "\(table)")
                }
            }
        }
    }

    /// Migration 0033 and the engine's writes: every ledger row lies in its device's part, a
    /// record without its device's bucket is refused before anything is written, and rows that
    /// existed before the migration learn their device's part (a pruned device's, part 0's).
    @Test(arguments: CitusTestDatabase.engines) func ledgerRowsLieInTheirDevicesParts(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let devices = try await f.registerDevices(1...40)
            let campaign = try await f.runningCampaign()
            try await f.run(campaign)
            // Read apart and compared here: a Citus cluster refuses a join of the ledger
            // (distributed by app) and the devices (by part) on the device.
            let ledger = try await f.client.query(
                "SELECT device_id, part FROM deliveries WHERE campaign_id = \(campaign.id)"
            ).collect().map { try $0.decode((Int64, Int32).self) }
            let parts = Dictionary(
                uniqueKeysWithValues: try await f.client.query("SELECT id, part FROM devices WHERE app_id = \(f.app.id)")
                    .collect().map { try $0.decode((Int64, Int32).self) })
            #expect(ledger.count == 40 && ledger.allSatisfy { parts[$0.0] == $0.1 })
            #expect(Set(try await f.client.query("SELECT DISTINCT part FROM deliveries").collect().map { try $0.decode(Int32.self) }).count > 1)

            let second = try await f.runningCampaign()
            let lease = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))
            #expect(lease.campaignID == second.id)
            let records = [
                DeliveryRecord(deviceID: devices[0].id, outcome: .accepted, bucket: devices[0].bucket),
                DeliveryRecord(deviceID: devices[1].id, outcome: .accepted),
            ]
            await #expect(throws: (any Error).self) {
                try await f.work.recordBatch(lease, records: records, invalidations: [], cursor: devices[1].id)
            }
            #expect(try await f.count("SELECT count(*) FROM deliveries WHERE campaign_id = \(second.id)") == 0)
            #expect(try #require(try await f.campaigns.get(id: second.id)).counters.accepted == 0)
        }
    }

    @Test func anExistingLedgerLearnsItsDevicesParts() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            try await TestDatabase.withClient(url) { client in
                try await TestDatabase.migrate(client, before: "0033")
                _ = try await client.query(
                    """
                    WITH app AS (INSERT INTO apps (bundle_id, team_id, default_environment)
                                 VALUES ('com.example.ledger', 'ABCDE12345', 'sandbox') RETURNING id),
                         device AS (INSERT INTO devices (app_id, token, environment, part)
                                    SELECT app.id, sha256(int4send(g)), 'production', herald_part(get_byte(sha256(sha256(int4send(g))), 0))
                                    FROM app, generate_series(1, 60) AS g RETURNING app_id, id),
                         campaign AS (INSERT INTO campaigns (app_id, name, template_name) SELECT id, 'Old', 'welcome' FROM app RETURNING id, app_id)
                    INSERT INTO deliveries (app_id, campaign_id, device_id, outcome)
                    SELECT campaign.app_id, campaign.id, device.id, 'accepted' FROM campaign, device
                    UNION ALL
                    SELECT app_id, id, 1000000 + g, 'failed' FROM campaign, generate_series(1, 5) AS g
                    """
                ).collect()
                try await TestDatabase.migrate(client)
                let (known, right) = try await client.query(
                    """
                    SELECT count(*), count(*) FILTER (WHERE l.part = d.part) FROM deliveries l
                    JOIN devices d ON d.app_id = l.app_id AND d.id = l.device_id
                    """
                ).collect().first!.decode((Int64, Int64).self)
                #expect(known == 60 && right == 60)
                let orphans = try await client.query(
                    "SELECT count(*) FROM deliveries WHERE device_id > 1000000 AND part = herald_part(0)"
                ).collect().first!.decode(Int64.self)
                #expect(orphans == 5)
                let key = try await client.query(
                    "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'deliveries_pkey' AND conrelid = 'deliveries'::regclass"
                ).collect().first!.decode(String.self)
                #expect(key == "PRIMARY KEY (app_id, campaign_id, device_id, part)")
            }
        }
    }
}
