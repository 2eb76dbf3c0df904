import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Testing

@testable import HeraldDelivery

@Suite struct DeliveryDecisionTests {
    let apnsID = UUID()
    let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    let german = LanguageTag("de")!

    private func decide(_ result: SendResult) -> (DeliveryRecord, DeviceInvalidation?) {
        DeliveryDecision.record(deviceID: 7, apnsID: apnsID, language: german, result: result, sentAt: sentAt)
    }

    @Test func acceptedKeepsTheApnsIDAndLanguage() {
        let (record, invalidation) = decide(.answered(APNSResponse(status: 200, apnsID: apnsID)))
        #expect(record == DeliveryRecord(deviceID: 7, outcome: .accepted, apnsID: apnsID, language: german))
        #expect(invalidation == nil)
    }

    @Test func unregisteredInvalidatesWithAPNsTimestamp() {
        let stamp = APNSTimestamp(milliseconds: 1_700_000_000_001)
        let (record, invalidation) = decide(
            .answered(APNSResponse(status: 410, reason: APNSReason(rawValue: "Unregistered"), timestamp: stamp)))
        #expect(record.outcome == .failed(status: 410, reason: "Unregistered"))
        #expect(invalidation == DeviceInvalidation(deviceID: 7, reason: "Unregistered", unregisteredAt: stamp))
    }

    @Test func unregisteredWithoutATimestampUsesTheSendTime() {
        let (_, invalidation) = decide(.answered(APNSResponse(status: 410, reason: APNSReason(rawValue: "Unregistered"))))
        #expect(invalidation?.unregisteredAt == APNSTimestamp(sentAt))
    }

    @Test(arguments: [APNSReason.badDeviceToken, .deviceTokenNotForTopic])
    func tokenErrorsInvalidateWhateverTheRegistrationTime(reason: APNSReason) {
        let (record, invalidation) = decide(.answered(APNSResponse(status: 400, reason: reason)))
        #expect(record.outcome == .failed(status: 400, reason: reason.rawValue))
        #expect(invalidation == DeviceInvalidation(deviceID: 7, reason: reason.rawValue))
    }

    @Test func otherErrorsAreRecordedButInvalidateNothing() {
        for (status, reason) in [(400, APNSReason.badCollapseID), (413, .payloadEmpty), (503, .forbidden)] {
            let (record, invalidation) = decide(.answered(APNSResponse(status: status, reason: reason)))
            #expect(record.outcome == .failed(status: status, reason: reason.rawValue))
            #expect(invalidation == nil)
        }
        let (withoutReason, _) = decide(.answered(APNSResponse(status: 500)))
        #expect(withoutReason.outcome == .failed(status: 500, reason: "HTTP 500"))
    }

    @Test func deferredAndUnansweredOutcomes() {
        #expect(decide(.deferred(APNSResponse(status: 429))).0.outcome == .deferred)
        let lost = decide(.failed(SendFailure(reason: "ConnectionLost", detail: "reset")))
        #expect(lost.0.outcome == .failed(status: nil, reason: "ConnectionLost"))
        #expect(lost.1 == nil)
    }

    @Test func skipsAndRenderFailuresAreNotSent() {
        let skipped = DeliveryDecision.record(deviceID: 3, notRendered: .skipped(.notAuthorized))
        #expect(skipped == DeliveryRecord(deviceID: 3, outcome: .skipped(reason: "notAuthorized")))
        let missing = DeliveryDecision.record(deviceID: 3, notRendered: .skipped(.missingArgument("attributes.x")))
        #expect(missing.outcome == .skipped(reason: "missingArgument"))
        let failed = DeliveryDecision.record(
            deviceID: 3, notRendered: .failed(RenderError(template: "t", language: "ja", reason: "too large")))
        #expect(failed.outcome == .failed(status: nil, reason: "RenderFailed"))
        #expect(failed.language == LanguageTag("ja"))
        #expect(failed.apnsID == nil)
    }

    @Test func refusedCredentialsStopTheCampaign() {
        let refused = SendResult.answered(APNSResponse(status: 403, reason: .invalidProviderToken))
        #expect(refused.credentialsRejection?.contains("InvalidProviderToken") == true)
        let stopped = SendResult.failed(SendFailure(reason: "CredentialsRejected", detail: "x", credentialsRejected: true))
        #expect(stopped.credentialsRejection != nil)
        #expect(SendResult.answered(APNSResponse(status: 403, reason: .expiredProviderToken)).credentialsRejection == nil)
        #expect(SendResult.answered(APNSResponse(status: 200)).credentialsRejection == nil)
    }
}

/// Apps an instance cannot open the credentials of: avoided for a wait that doubles while the
/// failures go on, told once per wait.
@Suite struct UnopenableAppsTests {
    @Test func anAppIsAvoidedForAWaitThatDoublesUpToTenMinutes() {
        var apps = UnopenableApps()
        let start = ContinuousClock.now
        #expect(apps.avoid(7, at: start) == .seconds(30))
        #expect(apps.avoid(7, at: start + .seconds(1)) == nil)
        #expect(apps.excluded(at: start + .seconds(29)) == [7])
        #expect(apps.excluded(at: start + .seconds(31)).isEmpty)
        var now = start + .seconds(31)
        var waits = [Duration]()
        for _ in 0..<6 {
            guard let wait = apps.avoid(7, at: now) else { break }
            waits.append(wait)
            now += wait + .seconds(1)
        }
        #expect(waits == [.seconds(60), .seconds(120), .seconds(240), .seconds(480), .seconds(600), .seconds(600)])
        #expect(apps.avoid(7, at: now) == .seconds(600))
        #expect(apps.avoid(8, at: now) == .seconds(30))
        #expect(apps.excluded(at: now) == [7, 8])
    }
}
