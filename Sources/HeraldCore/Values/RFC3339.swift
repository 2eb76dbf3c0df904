import Foundation

/// RFC 3339 times, with or without fractional seconds.
public enum RFC3339 {
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// UTC, with fractional seconds only when there are any.
    public static func format(_ date: Date) -> String {
        if date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970 {
            return date.formatted(.iso8601)
        }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
