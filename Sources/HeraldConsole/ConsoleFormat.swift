import APNSCore
import Foundation
import HeraldCore

/// How the console writes numbers, times and token digests.
enum ConsoleFormat {
    /// `1,234,567`.
    static func count(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return number < 0 ? "-" + grouped : grouped
    }

    /// `42.5 %` of `part` in `whole`, or `–` when there is no whole.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        let value = Double(part) * 100 / Double(whole)
        return String(format: "%.1f %%", value)
    }

    /// The Gregorian calendar in UTC, made once: pages format a time per row.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `2026-11-24 14:05:09 UTC`.
    static func time(_ date: Date) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d UTC", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
    }

    static func time(_ date: Date?) -> String { date.map { time($0) } ?? "–" }

    /// Midnight UTC of a `YYYY-MM-DD` day, as a date input gives it; nil for anything else.
    static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return RFC3339.parse(text + "T00:00:00Z")
    }

    /// A JSON object typed into a field; nil for anything else.
    /// A value as canonical JSON text (sorted keys), pretty-printed on request.
    static func json(_ value: PayloadValue, pretty: Bool = false) -> String {
        (try? CanonicalJSON.text(value, pretty: pretty)) ?? "{}"
    }

    static func jsonObject(_ text: String) -> [String: PayloadValue]? {
        guard let value = try? JSONReader.parse(text.utf8), case .object(let object) = value
        else { return nil }
        return object
    }

    /// A token as the console shows it: never in full, only its last 8 hex digits.
    static func tokenSuffix(_ hex: String) -> String { "…" + String(hex.suffix(8)) }
}
