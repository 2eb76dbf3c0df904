import Foundation

/// A time as APNs writes it: whole milliseconds since 1970 (the 410 body's `timestamp`). Kept
/// as the integer APNs sent, end to end (the invalidation rule compares it with a device's
/// registration, and webhooks and the API report it): through a `Double` of seconds a
/// millisecond is lost about a quarter of the time (`…36.001` read back as `…36.000`).
public struct APNSTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The nearest millisecond to `date` (a `Date` made from whole milliseconds comes back exact).
    public init(_ date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// As a `Date`, for arithmetic and display; not for storing or comparing.
    public var date: Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    public static func < (lhs: APNSTimestamp, rhs: APNSTimestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    /// RFC 3339 in UTC with exactly three fractional digits, from the integer:
    /// `2026-11-25T22:22:36.001Z`.
    public var rfc3339: String {
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let wholeSeconds = fraction < 0 ? seconds - 1 : seconds
        let millisecond = fraction < 0 ? fraction + 1000 : fraction
        let day = Date(timeIntervalSince1970: Double(wholeSeconds))
        var text = day.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        text.removeLast()  // "Z"
        let digits = String(millisecond)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    public var description: String { rfc3339 }
}

extension APNSTimestamp: Encodable {
    /// As its RFC 3339 text, the form every time in Herald's JSON takes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }
}
