import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// Turns what happened to one device into its ledger row and, for token errors, its
/// invalidation (docs/rules.md rule 1). Pure, so the rules are unit-tested.
enum DeliveryDecision {
    /// The row of a device that was not sent: the renderer skipped it or could not build it.
    static func record(deviceID: Int64, notRendered outcome: RenderOutcome) -> DeliveryRecord {
        switch outcome {
        case .payload(let rendered):
            // Not reached: rendered payloads are sent. Recorded as a failure rather than lost.
            return DeliveryRecord(
                deviceID: deviceID, outcome: .failed(.notSent), language: rendered.language)
        case .skipped(.notAuthorized):
            return DeliveryRecord(deviceID: deviceID, outcome: .skipped(.notAuthorized))
        case .skipped(.missingArgument):
            return DeliveryRecord(deviceID: deviceID, outcome: .skipped(.missingArgument))
        case .failed(let error):
            // The payload cannot be built (it cannot fit, even shortened): the worker logs
            // the error's detail once per campaign and language.
            return DeliveryRecord(
                deviceID: deviceID, outcome: .failed(.renderFailed),
                language: LanguageTag(error.language))
        }
    }

    /// The row and invalidation of a device that was sent at `sentAt`.
    static func record(
        deviceID: Int64, apnsID: UUID, language: LanguageTag?, result: SendResult, sentAt: Date
    ) -> (DeliveryRecord, DeviceInvalidation?) {
        let outcome: DeliveryOutcome
        var invalidation: DeviceInvalidation?
        switch result {
        case .answered(let response):
            let reason = response.reason?.rawValue ?? "HTTP \(response.status)"
            switch response.disposition {
            case .success:
                outcome = .accepted
            case .invalidToken where response.status == 410:
                outcome = .failed(status: 410, reason: reason)
                // APNs always gives a 410 its timestamp; without one, the time it was sent is
                // the latest moment the token is known to have been dead, so a registration
                // after the send still wins.
                invalidation = DeviceInvalidation(
                    deviceID: deviceID, reason: reason, unregisteredAt: response.timestamp ?? APNSTimestamp(sentAt))
            case .invalidToken:
                outcome = .failed(status: response.status, reason: reason)
                invalidation = DeviceInvalidation(deviceID: deviceID, reason: reason)
            default:
                outcome = .failed(status: response.status, reason: reason)
            }
        case .deferred:
            outcome = .deferred
        case .failed(let failure):
            outcome = .failed(status: nil, reason: failure.reason)
        }
        return (DeliveryRecord(deviceID: deviceID, outcome: outcome, apnsID: apnsID, language: language), invalidation)
    }
}
