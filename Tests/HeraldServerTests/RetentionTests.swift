import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// Retention deletes what is older than its settings, in batches, one instance at a time, and
/// keeps every campaign's figures.
@Suite struct RetentionTests {
    @Test func periodsOutsideOneDayToTenYearsAreRefusedByName() throws {
        for (name, value) in [
            ("HERALD_RETENTION_EVENTS_DAYS", "0"), ("HERALD_RETENTION_DELIVERIES_DAYS", "-3"),
            ("HERALD_RETENTION_AUDIT_DAYS", "4000"), ("HERALD_RETENTION_NOTIFICATIONS_DAYS", "soon"),
            ("HERALD_RETENTION_BATCH_SIZE", "0"), ("HERALD_RETENTION_ENABLED", "maybe"),
        ] {
            #expect(throws: ConfigurationError.self) { try HeraldConfiguration.load(environment: [name: value]) }
            do {
                _ = try HeraldConfiguration.load(environment: [name: value])
            } catch {
                #expect("\(error)".hasPrefix(name), "\(error)")
            }
        }
        let configuration = try HeraldConfiguration.load(environment: ["HERALD_RETENTION_EVENTS_DAYS": "30"])
        #expect(configuration.retention.eventsDays == 30 && configuration.retention.deliveriesDays == 180)
        #expect(RetentionPolicy().validate().isEmpty)
    }

    static func count(_ h: EngineHarness, _ sql: String) async throws -> Int {
        Int(try await h.store.client.query(PostgresQuery(unsafeSQL: sql)).collect().first!.decode(Int64.self))
    }

    @Test(arguments: EngineHarness.engines)
    func oldRowsGoInBatchesAndCampaignFiguresStay(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.register(0..<12, CampaignEngineTests.registration)
            let old = try await h.runToEnd(try await h.scheduledCampaign())
            let recent = try await h.runToEnd(try await h.scheduledCampaign())
            let client = h.store.client
            // The first campaign finished 200 days ago; rows of each kind, old and new.
            _ = try await client.query("UPDATE campaigns SET finished_at = now() - interval '200 days' WHERE id = \(old.id)").collect()
            for days in [1, 100, 100, 100] {
                _ = try await client.query(
                    """
                    INSERT INTO notifications (app_id, request_id, token, outcome, actor, created_at)
                    VALUES (\(h.app.id), gen_random_uuid(), '\\xabcdef0123456789'::bytea, 'accepted', 'test',
                            now() - make_interval(days => \(days)::int))
                    """
                ).collect()
                _ = try await client.query(
                    """
                    INSERT INTO events (app_id, kind, identity, occurred_at, received_at)
                    VALUES (\(h.app.id), 'converted', sha256(gen_random_uuid()::text::bytea), now(),
                            now() - make_interval(days => \(days * 5)::int))
                    """
                ).collect()
                _ = try await client.query(
                    "INSERT INTO audit_log (actor, action, at) VALUES ('test', 'old', now() - make_interval(days => \(days * 8)::int))"
                ).collect()
            }
            let deliveries = try await Self.count(h, "SELECT count(*) FROM deliveries")
            #expect(deliveries == 24)

            let policy = RetentionPolicy()
            let dry = try #require(try await h.store.retention.purge(policy, now: Date(), batchSize: 5, dryRun: true, actor: "test"))
            #expect(dry.deliveries == 12 && dry.campaigns == 1 && dry.notifications == 3 && dry.events == 3 && dry.audit == 3)
            #expect(try await Self.count(h, "SELECT count(*) FROM deliveries") == 24, "a dry run deleted something")

            // Another instance holds the lock: this one does nothing.
            let held = try await client.withConnection { connection in
                _ = try await connection.query("SELECT pg_advisory_lock(\(PostgresRetention.lockKey))", logger: TestDatabase.logger).collect()
                let result = try await h.store.retention.purge(policy, now: Date(), batchSize: 5, dryRun: false, actor: "test")
                _ = try await connection.query("SELECT pg_advisory_unlock(\(PostgresRetention.lockKey))", logger: TestDatabase.logger).collect()
                return result
            }
            #expect(held == nil)

            let done = try #require(try await h.store.retention.purge(policy, now: Date(), batchSize: 5, dryRun: false, actor: "test"))
            #expect(done == dry)
            #expect(try await Self.count(h, "SELECT count(*) FROM deliveries WHERE campaign_id = \(old.id)") == 0)
            #expect(try await Self.count(h, "SELECT count(*) FROM deliveries WHERE campaign_id = \(recent.id)") == 12)
            #expect(try await Self.count(h, "SELECT count(*) FROM notifications") == 1)
            #expect(try await Self.count(h, "SELECT count(*) FROM events") == 1)
            #expect(try await Self.count(h, "SELECT count(*) FROM campaigns WHERE deliveries_purged_at IS NOT NULL") == 1)
            // The campaign's figures are its chunks' counters, not its ledger.
            #expect(try await h.campaign(old.id).counters == old.counters)

            let again = try #require(try await h.store.retention.purge(policy, now: Date(), batchSize: 5, dryRun: false, actor: "test"))
            #expect(again.total == 0 && again.campaigns == 0)
            // Each run that deletes is audited with what it deleted and the periods it applied; a dry run is not.
            let runs = try await h.store.audit.list(AuditQuery(action: "retention.run", limit: 10)).entries
            #expect(runs.count == 2)
            let first = try #require(runs.last)
            #expect(first.actor == "test")
            guard case .object(let details) = first.details, case .object(let deleted)? = details["deleted"],
                case .object(let days)? = details["days"]
            else {
                Issue.record("no details: \(first.details)")
                return
            }
            #expect(deleted["deliveries"] == .int(12) && deleted["campaigns"] == .int(1) && days["deliveries"] == .int(180))
        }
    }
}
