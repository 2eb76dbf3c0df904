import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldServer

/// Background campaigns: a background template, every device whatever its alert settings,
/// priority 5 and `apns-push-type: background` (the simulator refuses anything else).
@Suite(.serialized) struct BackgroundCampaignTests {
    @Test func reachesEveryDeviceIncludingThoseThatDenyAlerts() async throws {
        try await EngineHarness.with { harness in
            let devices = 500
            try await harness.register(0..<devices, CampaignEngineTests.registration)
            let draft = CampaignDraft(
                appID: harness.app.id, name: "Refresh", templateName: "background-refresh",
                pushOptions: PushOptions(pushType: .background, custom: ["since": 42]), rateLimit: 2_000)
            let created = try await harness.store.campaigns.create(draft, actor: "test")
            let scheduled = try #require(try await harness.store.campaigns.transition(id: created.id, event: .schedule, actor: "test"))
            let campaign = try await harness.runToEnd(scheduled)
            #expect(campaign.state == .completed)
            #expect(campaign.counters.accepted == devices)
            #expect(campaign.counters.skipped == 0)
            try await harness.expectConsistent(campaign, devices: devices)
            let received = try harness.received()
            #expect(Set(received.map(\.payload)) == [#"{"aps":{"content-available":1},"refresh":"catalog","since":42}"#])
        }
    }

    @Test func aBackgroundCampaignWithAnAlertTemplateIsRefusedAtScheduling() async throws {
        try await EngineHarness.with { harness in
            let draft = CampaignDraft(
                appID: harness.app.id, name: "Wrong", templateName: "cart-reminder", pushOptions: PushOptions(pushType: .background))
            let created = try await harness.store.campaigns.create(draft, actor: "test")
            await #expect(throws: ValidationError.self) {
                _ = try await harness.store.campaigns.transition(id: created.id, event: .schedule, actor: "test")
            }
            #expect(try await harness.campaign(created.id).state == .draft)
            #expect(try await harness.campaign(created.id).templateVersion == nil)
        }
    }
}
