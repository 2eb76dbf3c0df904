import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// A campaign's rate limit is one timeline in PostgreSQL, shared by every worker of every
/// instance: two instances together send no faster than it.
@Suite(.serialized) struct RateLimitTests {
    @Test func oneLimitHoldsForTwoInstancesTogether() async throws {
        try await EngineHarness.with { h in
            let devices = 1_200
            let rate = 200
            try await h.register(0..<devices) { _ in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let campaign = try await h.scheduledCampaign(rateLimit: rate)
            let elapsed = try await h.withEngines(owners: ["engine-1", "engine-2"]) { () async throws -> Duration in
                try await h.waitFor("the campaign to start") { try await h.campaign(campaign.id).state != .scheduled }
                let start = ContinuousClock.now
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
                return ContinuousClock.now - start
            }
            #expect(try await h.campaign(campaign.id).counters.accepted == devices)
            // 1,200 at 200 a second is 6 s of slots: the last batch (a quarter second's worth)
            // cannot start before 5.75 s. Within 10 %: never faster than 220 a second. Two
            // instances each allowed the whole rate would take about 3 s.
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            #expect(seconds >= Double(devices) / (Double(rate) * 1.1) - 0.25, "sent at \(Double(devices) / seconds) a second")
            // Both instances sent.
            let owners = try await h.store.client.query(
                "SELECT count(DISTINCT lease_owner) FROM campaign_chunks WHERE campaign_id = \(campaign.id)"
            ).collect().first!.decode(Int64.self)
            #expect(owners == 2)
        }
    }
}
