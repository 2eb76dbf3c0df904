import Foundation

/// "At 10:00 on 1 December in each device's own time zone": the wall-clock moment a local-time
/// campaign reaches every device at, and what to do with zones where it has already passed
/// when the campaign is scheduled.
public struct LocalDelivery: Codable, Sendable, Hashable {
    /// A zone whose moment has passed when the campaign is scheduled.
    public enum LatePolicy: String, Codable, CaseIterable, Sendable {
        /// Sent as soon as the campaign starts.
        case send
        /// Not sent: its devices are recorded `skipped` with reason `localTimePassed`.
        case skip
    }

    /// The zones whose clocks run furthest ahead and behind (Kiribati, Baker Island): every
    /// zone's moment falls between these two.
    public static let earliestZone = TimeZone(secondsFromGMT: 14 * 3600)!
    public static let latestZone = TimeZone(secondsFromGMT: -12 * 3600)!
    /// How far ahead a local-time campaign may be set.
    public static let maximumLead: TimeInterval = 2 * 366 * 86_400

    /// `YYYY-MM-DD`.
    public var date: String
    /// `HH:MM`, 24-hour.
    public var time: String
    public var latePolicy: LatePolicy
    /// Set for best-time delivery: `time` starts a window in which each device gets the
    /// campaign at its own best hour (``BestTimeWindow``).
    public var bestTime: BestTimeWindow?

    public init(date: String, time: String, latePolicy: LatePolicy = .send, bestTime: BestTimeWindow? = nil) {
        self.date = date
        self.time = time
        self.latePolicy = latePolicy
        self.bestTime = bestTime
    }

    /// The wall-clock parts, or nil when `date` or `time` is not a real one.
    var components: DateComponents? {
        let dateParts = date.split(separator: "-", omittingEmptySubsequences: false)
        let timeParts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard dateParts.count == 3, dateParts[0].count == 4, dateParts[1].count == 2, dateParts[2].count == 2,
            timeParts.count == 2, timeParts[0].count == 2, timeParts[1].count == 2,
            (dateParts + timeParts).allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let year = Int(dateParts[0]), let month = Int(dateParts[1]), let day = Int(dateParts[2]),
            let hour = Int(timeParts[0]), let minute = Int(timeParts[1]),
            (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        // A day the month does not have (2026-02-30) is refused rather than rolled over.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
            let days = calendar.range(of: .day, in: .month, for: first), days.contains(day)
        else { return nil }
        return DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
    }

    /// The moment the zone's clocks show `date` `time`. On a day the clocks go forward past that
    /// time (02:30 that never happens), the first moment after the gap; on a day they go back
    /// and show it twice, the first.
    public func instant(in zone: TimeZone) -> Date? {
        guard let components else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var midnight = components
        midnight.hour = 0
        midnight.minute = 0
        guard let day = calendar.date(from: midnight) else { return nil }
        var wanted = DateComponents()
        wanted.hour = components.hour
        wanted.minute = components.minute
        // Search from just before the day's start so that 00:00 itself is found.
        return calendar.nextDate(
            after: day.addingTimeInterval(-1), matching: wanted, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
            direction: .forward)
    }

    /// The first moment any zone reaches it, and the last.
    public var earliest: Date? { instant(in: Self.earliestZone) }
    public var latest: Date? { instant(in: Self.latestZone) }

    /// Every problem, each naming its field below `delivery`; `now` is the server's time.
    public func validate(now: Date) -> [ValidationError] {
        guard components != nil else {
            let dateOK = LocalDelivery(date: date, time: "00:00").components != nil
            return [
                dateOK
                    ? ValidationError(field: "time", reason: "must be a 24-hour time HH:MM, e.g. 10:00")
                    : ValidationError(field: "date", reason: "must be a calendar date YYYY-MM-DD, e.g. 2026-12-01")
            ]
        }
        if let earliest, earliest.timeIntervalSince(now) > Self.maximumLead {
            return [ValidationError(field: "date", reason: "is more than two years ahead")]
        }
        return bestTime?.validate() ?? []
    }

    /// When scheduled at `now`: nil when usable; else why not (the moment has passed in every zone).
    public func checkSchedulable(now: Date) -> ValidationError? {
        if let latest, latest.addingTimeInterval(Double(max((bestTime?.windowHours ?? 1) - 1, 0)) * 3600) < now {
            return ValidationError(field: "delivery.date", reason: "\(date) \(time) has passed in every time zone")
        }
        return nil
    }
}

/// What a campaign does about the app's quiet hours.
public enum QuietHoursMode: String, Codable, CaseIterable, Sendable {
    /// A device inside its quiet hours is sent to when they end.
    case hold
    /// A device inside its quiet hours is recorded `skipped` with reason `quietHours`.
    case skip
    /// Quiet hours do not apply.
    case ignore
}

/// An app's quiet hours: a daily window of wall-clock time in each device's zone (e.g.
/// 21:00–08:00) when campaigns do not reach it. The window may cross midnight; its ends differ.
public struct QuietHours: Codable, Sendable, Hashable {
    /// Minutes after midnight, 0 to 1439.
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// `HH:MM-HH:MM`, or nil (with the reason) when either end is not a time or they are equal.
    public static func parse(_ text: String) -> Result<QuietHours, ValidationError> {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2, let start = minutes(ends[0]), let end = minutes(ends[1]) else {
            return .failure(ValidationError(field: "quietHours", reason: "must be HH:MM-HH:MM, e.g. 21:00-08:00"))
        }
        guard start != end else {
            return .failure(ValidationError(field: "quietHours", reason: "its start and end must differ"))
        }
        return .success(QuietHours(start: start, end: end))
    }

    /// Minutes after midnight of `HH:MM`.
    public static func minutes(_ text: String) -> Int? {
        LocalDelivery(date: "2000-01-01", time: text).components.map { $0.hour! * 60 + $0.minute! }
    }

    public var description: String {
        String(format: "%02d:%02d-%02d:%02d", start / 60, start % 60, end / 60, end % 60)
    }

    /// Whether a wall-clock minute of the day falls inside the window.
    public func contains(minute: Int) -> Bool {
        start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }

    /// Whether `moment` is inside the window in `zone`.
    public func contains(_ moment: Date, in zone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: moment)
        return contains(minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
    }

    /// The first moment after `moment` that the window ends in `zone` (daylight saving included).
    public func end(after moment: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.nextDate(
            after: moment, matching: DateComponents(hour: end / 60, minute: end % 60), matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward) ?? moment.addingTimeInterval(3600)
    }
}
