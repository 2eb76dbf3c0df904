import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldStore

/// A started campaign's audience is counted after its start commits, while it sends
/// (docs/campaigns.md, "Starting"): the first notification does not wait for the count, and
/// the campaign cannot complete before its size is known.
@Suite struct AudienceCountTests {
    @Test(arguments: CitusTestDatabase.engines) func aCampaignSendsBeforeItsCountAndCompletesOnlyOnceCounted(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...20)
            try await f.addTemplate("welcome")
            let created = try await f.campaigns.create(f.draft("Now"), actor: "test")
            _ = try await f.campaigns.transition(id: created.id, event: .schedule, actor: "test")
            // Started as the scheduler starts it, and stopped there, as by an instance that died
            // before it counted.
            let started = try #require(
                try await f.client.withDomainTransaction(logger: TestDatabase.logger) { connection in
                    try await CampaignLifecycle.transition(
                        id: created.id, event: .start, actor: "scheduler", on: connection, logger: TestDatabase.logger)
                })
            #expect(started.state == .running && started.counters.addsUp)
            #expect(!created.counters.audienceCounting && started.counters.audienceCounting)
            #expect(try await f.count("SELECT count(*) FROM campaigns WHERE audience_size IS NULL") == 1)

            // Every chunk is sent; the campaign waits for its count.
            let (seen, completed) = try await f.run(started)
            #expect(seen.count == 20 && completed.isEmpty)
            let sent = try #require(try await f.campaigns.get(id: created.id))
            #expect(sent.state == .running && sent.counters.audienceCounting && sent.counters.done == 20)

            // Not yet an orphan a minute on; found once it is.
            #expect(try await CampaignLifecycle.uncounted(olderThan: .seconds(60), client: f.client, logger: TestDatabase.logger).isEmpty)
            #expect(
                try await CampaignLifecycle.uncounted(olderThan: .zero, client: f.client, logger: TestDatabase.logger) == [created.id])
            #expect(
                try await CampaignLifecycle.countAudience(campaignID: created.id, actor: "scheduler", client: f.client, logger: TestDatabase.logger))
            let done = try #require(try await f.campaigns.get(id: created.id))
            #expect(done.state == .completed && done.counters.audienceSize == 20 && done.counters.accepted == 20)
            #expect(done.counters.addsUp && done.counters.unsent == 0 && done.counters.pending == 0)
            #expect(!done.counters.audienceCounting)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.complete'") == 1)
            // Counted once: another instance's count changes nothing.
            #expect(try await !CampaignLifecycle.countAudience(campaignID: created.id, actor: "other", client: f.client, logger: TestDatabase.logger))
        }
    }

    /// The scheduler counts what it starts before it reports it, and an orphan's count with it.
    @Test func theSchedulerCountsWhatItStarts() async throws {
        try await StoreFixture.with { f in
            try await f.registerDevices(1...12)
            let campaign = try await f.runningCampaign(audience: AudienceFilter(languages: ["en"]))
            #expect(campaign.counters.audienceSize == 12 && campaign.counters.pending == 12)
            #expect(try await f.count("SELECT count(*) FROM campaigns WHERE audience_size IS NULL") == 0)
        }
    }
}
