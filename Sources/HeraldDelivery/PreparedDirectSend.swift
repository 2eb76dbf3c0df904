import APNSCore
import Foundation
import HeraldCore

/// One request of a direct send, rendered: each recipient's outcome so far (nil: not yet
/// known) and the notifications still to go out.
struct PreparedDirectSend {
    struct Send {
        /// The recipient's position.
        let index: Int
        let environment: APNSEnvironment
        let language: LanguageTag?
        let notification: APNSNotification
    }

    let request: DirectSendRequest
    /// The request's position in its batch.
    let index: Int
    let recipients: [DirectRecipient]
    var results: [DirectSendResult?]
    private(set) var sends: [Send] = []

    init(request: DirectSendRequest, index: Int, recipients: [DirectRecipient], content: DirectContent, at sentAt: Date) {
        self.request = request
        self.index = index
        self.recipients = recipients
        results = Array(repeating: nil, count: recipients.count)
        let app = request.app
        for (position, recipient) in recipients.enumerated() {
            if let device = recipient.device, !device.isValid {
                results[position] = DirectSendResult(token: recipient.token, deviceID: device.id, outcome: .skipped(.invalidated))
                continue
            }
            if request.respectQuietHours, let device = recipient.device, app.quietHoursEnd(for: device, at: sentAt) != nil {
                results[position] = DirectSendResult(token: recipient.token, deviceID: device.id, outcome: .skipped(.quietHours))
                continue
            }
            switch content.body(for: recipient.described) {
            case .notSent(let outcome):
                results[position] = DirectSendResult(token: recipient.token, deviceID: recipient.device?.id, outcome: outcome)
            case .send(let pushType, let encoded, let language):
                let options = request.pushOptions
                let notification = APNSNotification(
                    token: recipient.token, topic: pushType.topic(forBundleID: app.bundleID),
                    pushType: pushType, priority: options.priority, expiration: options.apnsExpiration(sentAt: sentAt),
                    collapseID: options.collapseID,
                    apnsID: DirectSender.apnsID(seed: request.apnsIDSeed, token: recipient.token),
                    body: .encoded(encoded))
                let environment = recipient.device?.environment ?? request.environment ?? app.defaultEnvironment
                sends.append(Send(index: position, environment: environment, language: language, notification: notification))
            }
        }
    }

    /// Takes out the sends to registered devices `skip` gives an outcome to (a frequency cap).
    mutating func keep(unless skip: (Device) -> DeliveryOutcome?) {
        sends.removeAll { send in
            let recipient = recipients[send.index]
            guard let device = recipient.device, let outcome = skip(device) else { return false }
            results[send.index] = DirectSendResult(
                token: recipient.token, deviceID: device.id, outcome: outcome, language: send.language)
            return true
        }
    }

    /// Records APNs's answers to ``sends`` (in their order); the invalidations they carry.
    mutating func answer(_ answers: [SendResult], at sentAt: Date) -> [DeviceInvalidation] {
        var invalidations = [DeviceInvalidation]()
        for (send, answer) in zip(sends, answers) {
            let recipient = recipients[send.index]
            let (record, invalidation) = DeliveryDecision.record(
                deviceID: recipient.device?.id ?? 0, apnsID: send.notification.apnsID,
                language: send.language, result: answer, sentAt: sentAt)
            results[send.index] = DirectSendResult(
                token: recipient.token, deviceID: recipient.device?.id, outcome: record.outcome,
                apnsID: record.apnsID, language: send.language)
            // An unregistered token has no device to invalidate.
            if let invalidation, recipient.device != nil { invalidations.append(invalidation) }
        }
        return invalidations
    }
}
