import APNSCore
import Foundation
import HeraldCore

/// One batch of a chunk, read and rendered, ready to send: what was decided without sending
/// (skips, payloads that cannot be built) and the notifications to send.
struct PreparedBatch: Sendable {
    /// A device the batch sends to; its notification is at the same position in `notifications`.
    struct Send: Sendable {
        let deviceID: Int64
        /// The device's bucket, carried to its ledger row.
        let bucket: Int
        let language: LanguageTag
        let environment: APNSEnvironment
        /// The campaign message it renders (an index into ``Campaign/messages``).
        let variant: Int
    }

    /// The last device ID read: the chunk's cursor once this batch is recorded.
    var lastDeviceID: Int64
    var decided: [DeliveryRecord] = []
    private(set) var sends: [Send] = []
    /// The sends' notifications, kept apart so that the sender takes the whole array as it is
    /// instead of a copy of each notification.
    private(set) var notifications: [APNSNotification] = []

    init(lastDeviceID: Int64, capacity: Int = 0) {
        self.lastDeviceID = lastDeviceID
        sends.reserveCapacity(capacity)
        notifications.reserveCapacity(capacity)
    }

    mutating func append(_ send: Send, notification: APNSNotification) {
        sends.append(send)
        notifications.append(notification)
    }

    var isEmpty: Bool { decided.isEmpty && sends.isEmpty }

    /// Turns every notification of the batch into a skip with `reason`, unsent.
    mutating func skipAll(reason: HeraldReason) {
        skip(reason: reason) { _ in true }
    }

    /// Turns the notifications `which` picks into skips with `reason`, unsent.
    mutating func skip(reason: HeraldReason, where which: (Send) -> Bool) {
        var kept = PreparedBatch(lastDeviceID: lastDeviceID)
        kept.decided = decided
        for (send, notification) in zip(sends, notifications) {
            if which(send) {
                kept.decided.append(
                    DeliveryRecord(
                        deviceID: send.deviceID, outcome: .skipped(reason), language: send.language,
                        variant: send.variant, bucket: send.bucket))
            } else {
                kept.append(send, notification: notification)
            }
        }
        self = kept
    }
    var deviceCount: Int { decided.count + sends.count }
}

/// What became of a sent batch.
struct BatchAnswers: Sendable {
    var records: [DeliveryRecord]
    var invalidations: [DeviceInvalidation]
    /// Set when APNs refused the app's credentials: the campaign fails with it.
    var credentialsRejected: String?
}
