import APNSCore
import Foundation
import HeraldCore

/// One batch of a chunk, read and rendered, ready to send: what was decided without sending
/// (skips, payloads that cannot be built) and the notifications, by environment.
struct PreparedBatch: Sendable {
    struct Send: Sendable {
        let deviceID: Int64
        /// The device's bucket, carried to its ledger row.
        let bucket: Int
        let language: LanguageTag
        let environment: APNSEnvironment
        /// The campaign message it renders (an index into ``Campaign/messages``).
        let variant: Int
        let notification: APNSNotification
    }

    /// The last device ID read: the chunk's cursor once this batch is recorded.
    var lastDeviceID: Int64
    var decided: [DeliveryRecord] = []
    var sends: [Send] = []

    var isEmpty: Bool { decided.isEmpty && sends.isEmpty }

    /// Turns every notification of the batch into a skip with `reason`, unsent.
    mutating func skipAll(reason: HeraldReason) {
        skip(reason: reason) { _ in true }
    }

    /// Turns the notifications `which` picks into skips with `reason`, unsent.
    mutating func skip(reason: HeraldReason, where which: (Send) -> Bool) {
        var kept = [Send]()
        for send in sends {
            if which(send) {
                decided.append(
                    DeliveryRecord(
                        deviceID: send.deviceID, outcome: .skipped(reason), language: send.language,
                        variant: send.variant, bucket: send.bucket))
            } else {
                kept.append(send)
            }
        }
        sends = kept
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
