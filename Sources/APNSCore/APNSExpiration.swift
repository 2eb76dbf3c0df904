import Foundation

/// When APNs may stop trying to deliver, sent as `apns-expiration` (docs/apns.md "Requests").
/// A notification without one omits the header, leaving APNs's storage policy (up to 30 days).
public enum APNSExpiration: Hashable, Sendable {
    /// `0`: try once, do not store.
    case immediately
    /// Store and retry until this moment (whole UNIX seconds, rounded down).
    case at(Date)

    /// UNIX seconds; negative only for dates before 1970, which validation refuses.
    public var unixSeconds: Int64 {
        switch self {
        case .immediately: 0
        case .at(let date):
            // Clamped rather than trapping on absurd dates; validation refuses negatives.
            Self.clampedSeconds(date.timeIntervalSince1970.rounded(.down))
        }
    }

    private static func clampedSeconds(_ seconds: Double) -> Int64 {
        Int64(exactly: seconds) ?? (seconds > 0 ? .max : .min)
    }

    /// The value of the `apns-expiration` header.
    public var headerValue: String { String(unixSeconds) }
}
