import APNSCore
import Foundation

/// What the simulator sends back for one request (docs/apns.md "Responses"): `:status` and
/// `apns-id`; errors add a JSON body `{"reason": ...}`, with `timestamp` on 410 only.
struct SimulatorResponse: Hashable, Sendable {
    var status: Int
    var apnsID: UUID
    var reason: APNSReason?
    var timestamp: Date?
    /// A channel request's answer: `apns-request-id` instead of `apns-id`, a created channel's
    /// `apns-channel-id`, and a read's or list's JSON body.
    var isChannelRequest = false
    var channelID: String?
    var successBody: [UInt8]?

    /// The answer to a validator's refusal, a scripted fault or (neither) a success.
    init(verdict: SimulatorVerdict, fault: SimulatorFault?) {
        apnsID = verdict.apnsID
        isChannelRequest = verdict.isChannelRequest
        if let fault {
            status = fault.status
            reason = fault.reason
            timestamp = fault.timestamp
        } else {
            status = verdict.status
            reason = verdict.reason
            timestamp = nil
        }
    }

    /// The error body; `nil` for 200, whose body is empty.
    var body: [UInt8]? {
        guard let reason else { return successBody }
        return SimulatorJSON.errorBody(
            reason: reason.rawValue,
            timestampMilliseconds: timestamp.map { Self.milliseconds($0) }
        )
    }

    /// UNIX milliseconds, as APNs writes the 410 timestamp: the nearest to `date`, so a time
    /// made from whole milliseconds is sent as exactly those.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: value) ?? 0
    }
}
