import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Scheduling a campaign notifies the engines through PostgreSQL (LISTEN/NOTIFY): with a poll
/// of ten minutes, a campaign scheduled while the engines wait still starts at once. (The wait
/// below is generous, for a machine running the whole suite; without the signal nothing would
/// happen before the poll.)
@Suite(.serialized) struct WakeUpTests {
    @Test func schedulingWakesWaitingEnginesWithoutTheirPoll() async throws {
        try await EngineHarness.with(adjust: { $0.enginePollMilliseconds = 600_000 }) { h in
            try await h.register(0..<50) { _ in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let draft = try await h.store.campaigns.create(
                CampaignDraft(appID: h.app.id, name: "Wake", templateName: "cart-reminder"), actor: "test")
            try await h.withEngines(owners: ["engine-1", "engine-2"]) {
                // Both engines have polled once, found nothing, listen, and wait ten minutes for the next poll.
                // (pg_stat_activity spans the cluster: other tests' engines listen there too.)
                try await h.waitFor("both engines to listen for work", timeout: .seconds(180)) {
                    try await h.store.client.query(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND query ILIKE 'LISTEN%herald_work%'
                        """
                    ).collect().first?.decode(Int64.self) ?? 0 >= 2
                }
                try await Task.sleep(for: .milliseconds(200))
                _ = try await h.store.campaigns.transition(id: draft.id, event: .schedule, actor: "test")
                do {
                    try await h.waitFor("the campaign to complete long before the next poll", timeout: .seconds(240)) {
                        try await h.campaign(draft.id).state == .completed
                    }
                } catch {
                    // Which it was: never started (the signal was lost) or started and slow.
                    let campaign = try await h.campaign(draft.id)
                    Issue.record("the campaign is \(campaign.state) with \(campaign.counters.accepted) accepted")
                    throw error
                }
            }
            #expect(try await h.campaign(draft.id).counters.accepted == 50)
        }
    }
}
