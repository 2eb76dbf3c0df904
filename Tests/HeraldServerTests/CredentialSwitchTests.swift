import APNSCore
import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// An admin replaces an app's signing key, or disables the app, while a campaign is being
/// sent: the engine follows without a restart, and nothing in flight is lost.
@Suite(.serialized) struct CredentialSwitchTests {
    static let newKeyID = "KEY2345678"

    @Test func aRunningCampaignSwitchesToTheNewKeyAndLosesNothing() async throws {
        let newKey = P256.Signing.PrivateKey()
        try await EngineHarness.with(
            moreProviderKeys: [Self.newKeyID: newKey.publicKey], adjust: { $0.credentialRecheckMilliseconds = 100 }
        ) { h in
            let devices = 2_000
            try await h.register(0..<devices, CampaignEngineTests.registration)
            // 1,000 a second: about two seconds of sending, so the switch lands in the middle.
            let scheduled = try await h.scheduledCampaign(rateLimit: 1_000)
            let campaign = try await h.withEngines {
                try await h.waitFor("the first notifications") { try h.received().count >= 300 }
                let added = try await h.store.apps.addCredential(
                    appID: h.app.id, .signingKey(try NewSigningKey(keyID: Self.newKeyID, pem: newKey.pemRepresentation)),
                    activate: true, actor: "test")
                #expect(added.state == .active)
                try await h.waitFor("the campaign to complete") {
                    try await h.campaign(scheduled.id).state.isFinished
                }
                return try await h.campaign(scheduled.id)
            }
            #expect(campaign.state == .completed)
            #expect(campaign.counters.failed == 0 && campaign.counters.unsent == 0)
            try await h.expectConsistent(campaign, devices: devices)

            let received = try h.received()
            #expect(received.count == campaign.counters.accepted)
            #expect(Set(received.map(\.token)).count == received.count, "a device got two notifications")
            let keys = received.map(\.keyID)
            #expect(keys.first == EngineHarness.keyID && keys.last == Self.newKeyID)
            let switched = try #require(keys.firstIndex(of: Self.newKeyID))
            #expect(switched >= 300)
            // Once the new key is in use, the old one is not used again beyond the batches
            // already in flight at the switch.
            let lateOldKeys = keys[switched...].filter { $0 == EngineHarness.keyID }.count
            #expect(lateOldKeys <= 2 * h.configuration.engineBatchSize, "\(lateOldKeys) notifications used the old key late")
            #expect(keys.suffix(200).allSatisfy { $0 == Self.newKeyID })
        }
    }

    @Test func disablingAnAppStopsItsRunningCampaign() async throws {
        try await EngineHarness.with(adjust: { $0.credentialRecheckMilliseconds = 100 }) { h in
            let devices = 2_000
            try await h.register(0..<devices, CampaignEngineTests.registration)
            let scheduled = try await h.scheduledCampaign(rateLimit: 1_000)
            let campaign = try await h.withEngines {
                try await h.waitFor("the first notifications") { try h.received().count >= 300 }
                _ = try await h.store.apps.update(appID: h.app.id, changes: AppChanges(disabled: true), actor: "test")
                // Failed, and the batches other chunks had in flight then are recorded.
                try await h.waitFor("the campaign to stop") {
                    guard try await h.campaign(scheduled.id).state.isFinished else { return false }
                    return try await h.batchesInFlight(scheduled.id) == 0
                }
                return try await h.campaign(scheduled.id)
            }
            #expect(campaign.state == .failed)
            #expect(campaign.failureReason?.contains("AppDisabled") == true, "\(campaign.failureReason ?? "")")
            let received = try h.received()
            #expect(received.count < 1_500 && received.count == campaign.counters.accepted)
            #expect(Set(received.map(\.token)).count == received.count)
        }
    }
}
