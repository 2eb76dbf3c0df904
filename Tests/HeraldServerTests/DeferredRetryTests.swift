import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// A device APNs answers 429 TooManyRequests is tried again in the same campaign after a
/// backoff of minutes (the engine's clock injected, so no one waits), until accepted or out of
/// attempts; meanwhile its chunk is given back and the campaign stays running.
@Suite(.serialized) struct DeferredRetryTests {
    /// On one PostgreSQL, and on the Citus cluster when there is one (docs/scaling.md).
    @Test(arguments: EngineHarness.engines)
    func deferredDevicesAreTriedAgainAfterTheirBackoffThenFinal(onCluster: Bool) async throws {
        var fault = SimulatorFaultScript()
        for n in 0..<10 { fault.tooManyRequestsTokens[EngineHarness.token(n).hex] = 1 }
        for n in 10..<15 { fault.tooManyRequestsTokens[EngineHarness.token(n).hex] = 9 }
        try await EngineHarness.with(fault: fault, adjust: { $0.engineDeferredRetrySeconds = 120 }, onCluster: onCluster) { h in
            try await h.register(0..<100) { _ in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let start = Date()
            let clock = LocalTimeCampaignTests.Clock(start)
            let campaign = try await h.scheduledCampaign()
            try await h.withEngines(clock: clock.read) {
                try await h.waitFor("the first pass") {
                    let counters = try await h.campaign(campaign.id).counters
                    return counters.audienceSize == 100 && counters.accepted + counters.deferred == 100
                }
                let first = try await h.campaign(campaign.id)
                #expect(first.state == .running, "the deferred devices are still to be tried")
                #expect(first.counters.accepted == 85 && first.counters.deferred == 15)
                // Two minutes later: the ten throttled once are accepted, five deferred again.
                clock.set(start.addingTimeInterval(121))
                // Each chunk tries its own devices: wait until the five are deferred again too, or
                // a chunk tried later would reckon their next try from the clock moved below.
                try await h.waitFor("the second try") {
                    let again = try await h.store.client.query(
                        """
                        SELECT count(*) FROM deliveries
                        WHERE campaign_id = \(campaign.id) AND outcome = 'deferred' AND attempts = 2 AND retry_at IS NOT NULL
                        """
                    ).collect().first?.decode(Int64.self)
                    return try await h.campaign(campaign.id).counters.accepted == 95 && again == 5
                }
                #expect(try await h.campaign(campaign.id).state == .running)
                // Four more minutes: the third and last try; those five stay deferred for good.
                clock.set(start.addingTimeInterval(121 + 241))
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
            }
            let finished = try await h.campaign(campaign.id)
            #expect(finished.counters.accepted == 95 && finished.counters.deferred == 5 && finished.counters.addsUp)
            #expect(finished.counters.variants.first?.accepted == 95 && finished.counters.variants.first?.deferred == 5)
            let rows = try await h.store.client.query(
                "SELECT outcome, attempts, retry_at IS NULL FROM deliveries WHERE campaign_id = \(campaign.id) AND attempts > 1")
            var seen = [String: [Int16]]()
            for try await (outcome, attempts, final) in rows.decode((String, Int16, Bool).self) {
                #expect(final)
                seen[outcome, default: []].append(attempts)
            }
            #expect(seen["accepted"]?.count == 10 && seen["accepted"]?.allSatisfy { $0 == 2 } == true)
            #expect(seen["deferred"]?.count == 5 && seen["deferred"]?.allSatisfy { $0 == 3 } == true)
            try await h.expectConsistent(finished, devices: 100)
        }
    }
}
