import Foundation

/// When a recurring campaign runs (docs/campaigns.md "Recurring campaigns"): every day, on given
/// weekdays, or on a day of the month, at a wall-clock time, either in one time zone or in each
/// device's own, from a first date to an optional last one or a number of runs.
///
/// A run is named by its calendar date. In a zone, it is due when that zone's clocks show the
/// time on that date. In device-local time, it is due when the first zone on Earth reaches it
/// (UTC+14); each device then gets it at the time in its own zone, as a local-time campaign.
public struct Recurrence: Codable, Sendable, Hashable {
    public enum Frequency: String, Codable, Sendable, CaseIterable {
        case daily, weekly, monthly
    }

    /// ISO weekdays, Monday first, as `days` spells them.
    public enum Weekday: String, Codable, Sendable, CaseIterable {
        case mon, tue, wed, thu, fri, sat, sun

        /// Gregorian `weekday` (Sunday 1 … Saturday 7).
        var gregorian: Int { (Self.allCases.firstIndex(of: self)! + 1) % 7 + 1 }
    }

    public static let maximumRuns = 10_000

    public var frequency: Frequency
    /// `HH:MM`, 24-hour.
    public var time: String
    /// The weekdays of a weekly schedule.
    public var days: [Weekday]?
    /// The day of a monthly schedule, 1 to 31; in a month without it, the month's last day.
    public var dayOfMonth: Int?
    /// An IANA zone the time is read in; nil with ``deviceLocalTime``.
    public var timeZone: String?
    /// Each device gets the run at the time in its own zone.
    public var deviceLocalTime: Bool
    /// The first date a run may fall on, `YYYY-MM-DD`.
    public var startsOn: String
    /// The last date a run may fall on, inclusive.
    public var endsOn: String?
    /// The series finishes after this many runs have started.
    public var runs: Int?

    public init(
        frequency: Frequency, time: String, days: [Weekday]? = nil, dayOfMonth: Int? = nil, timeZone: String? = "UTC",
        deviceLocalTime: Bool = false, startsOn: String, endsOn: String? = nil, runs: Int? = nil
    ) {
        self.frequency = frequency
        self.time = time
        self.days = days
        self.dayOfMonth = dayOfMonth
        self.timeZone = deviceLocalTime ? nil : timeZone
        self.deviceLocalTime = deviceLocalTime
        self.startsOn = startsOn
        self.endsOn = endsOn
        self.runs = runs
    }

    /// One run: its date and the moment it is due.
    public struct Occurrence: Sendable, Hashable {
        public var date: String
        public var due: Date

        public init(date: String, due: Date) {
            self.date = date
            self.due = due
        }
    }

    /// The first run dated after `date` (or from ``startsOn`` when nil), or nil when the
    /// schedule has none left (past ``endsOn``).
    public func occurrence(after date: String?) -> Occurrence? {
        guard var day = Self.day(date ?? startsOn), let first = Self.day(startsOn) else { return nil }
        if date != nil { day = Self.calendar.date(byAdding: .day, value: 1, to: day)! }
        day = max(day, first)
        let last = endsOn.flatMap(Self.day)
        // A weekly or monthly schedule matches within 31 days; daily at once.
        for _ in 0..<62 {
            if let last, day > last { return nil }
            if matches(day) {
                let text = Self.text(day)
                guard let due = due(on: text) else { return nil }
                return Occurrence(date: text, due: due)
            }
            day = Self.calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return nil
    }

    /// The first run due after `moment`, or nil.
    public func occurrence(dueAfter moment: Date) -> Occurrence? {
        // Dates from two days before the moment's UTC date cover every zone.
        let start = Self.text(Self.calendar.date(byAdding: .day, value: -3, to: moment)!)
        var next = occurrence(after: start)
        while let candidate = next, candidate.due <= moment { next = occurrence(after: candidate.date) }
        return next
    }

    /// When the run dated `date` is due.
    public func due(on date: String) -> Date? {
        let delivery = LocalDelivery(date: date, time: time)
        if deviceLocalTime { return delivery.earliest }
        guard let zone = TimeZone(identifier: timeZone ?? "UTC") else { return nil }
        return delivery.instant(in: zone)
    }

    /// The last moment the run dated `date` can still reach a device at its time: in a zone,
    /// an hour after it is due; in local time, when the last zone on Earth reaches it.
    public func lastChance(on date: String) -> Date? {
        if deviceLocalTime { return LocalDelivery(date: date, time: time).latest }
        return due(on: date)?.addingTimeInterval(3600)
    }

    private func matches(_ day: Date) -> Bool {
        switch frequency {
        case .daily:
            return true
        case .weekly:
            let weekday = Self.calendar.component(.weekday, from: day)
            return (days ?? []).contains { $0.gregorian == weekday }
        case .monthly:
            let wanted = dayOfMonth ?? 1
            let dayNumber = Self.calendar.component(.day, from: day)
            let length = Self.calendar.range(of: .day, in: .month, for: day)!.count
            return dayNumber == min(wanted, length)
        }
    }

    /// Every problem, each naming its field below `schedule`.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if QuietHours.minutes(time) == nil {
            errors.append(ValidationError(field: "time", reason: "must be a 24-hour time HH:MM, e.g. 10:00"))
        }
        switch frequency {
        case .daily:
            if days != nil { errors.append(ValidationError(field: "days", reason: "is for a weekly schedule")) }
            if dayOfMonth != nil { errors.append(ValidationError(field: "dayOfMonth", reason: "is for a monthly schedule")) }
        case .weekly:
            if (days ?? []).isEmpty {
                errors.append(ValidationError(field: "days", reason: "a weekly schedule names one or more of mon … sun"))
            }
            if dayOfMonth != nil { errors.append(ValidationError(field: "dayOfMonth", reason: "is for a monthly schedule")) }
        case .monthly:
            if let dayOfMonth, !(1...31).contains(dayOfMonth) {
                errors.append(ValidationError(field: "dayOfMonth", reason: "must be 1 to 31 (31: each month's last day)"))
            } else if dayOfMonth == nil {
                errors.append(ValidationError(field: "dayOfMonth", reason: "a monthly schedule names its day, 1 to 31"))
            }
            if days != nil { errors.append(ValidationError(field: "days", reason: "is for a weekly schedule")) }
        }
        if deviceLocalTime, timeZone != nil {
            errors.append(ValidationError(field: "timeZone", reason: "a schedule in each device's local time has no zone"))
        }
        if !deviceLocalTime, let timeZone, TimeZone(identifier: timeZone) == nil {
            errors.append(ValidationError(field: "timeZone", reason: "not an IANA time zone name (e.g. Europe/Paris)"))
        }
        if Self.day(startsOn) == nil {
            errors.append(ValidationError(field: "startsOn", reason: "must be a calendar date YYYY-MM-DD, e.g. 2026-12-01"))
        }
        if let endsOn {
            if Self.day(endsOn) == nil {
                errors.append(ValidationError(field: "endsOn", reason: "must be a calendar date YYYY-MM-DD, e.g. 2027-03-01"))
            } else if let first = Self.day(startsOn), let last = Self.day(endsOn), last < first {
                errors.append(ValidationError(field: "endsOn", reason: "is before startsOn"))
            }
        }
        if let runs, !(1...Self.maximumRuns).contains(runs) {
            errors.append(ValidationError(field: "runs", reason: "must be 1 to \(Self.maximumRuns)"))
        }
        return errors
    }

    /// The problems of a new schedule at `now`: those of ``validate()``, and a schedule whose
    /// every run would be past (or that has none, as a weekly one ending before its first day).
    public func validate(now: Date) -> [ValidationError] {
        let errors = validate()
        guard errors.isEmpty else { return errors }
        guard occurrence(after: nil) != nil else {
            return [ValidationError(field: "endsOn", reason: "the schedule has no run between startsOn and endsOn")]
        }
        if let start = Self.day(startsOn), start.timeIntervalSince(now) > LocalDelivery.maximumLead {
            return [ValidationError(field: "startsOn", reason: "is more than two years ahead")]
        }
        guard occurrence(dueAfter: now) != nil else {
            return [ValidationError(field: "endsOn", reason: "every run of the schedule is already past")]
        }
        return []
    }

    /// In words, as the CLI and the console show it: "weekly on mon, thu at 10:00 in each
    /// device's zone, from 2027-01-04, 12 runs".
    public var summary: String {
        var text = frequency.rawValue
        if let days { text += " on " + days.map(\.rawValue).joined(separator: ", ") }
        if let dayOfMonth { text += " on day \(dayOfMonth)" }
        text += " at \(time) " + (deviceLocalTime ? "in each device's zone" : timeZone ?? "UTC")
        text += ", from \(startsOn)"
        if let endsOn { text += " to \(endsOn)" }
        if let runs { text += ", \(runs) runs" }
        return text
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// Midnight UTC of a `YYYY-MM-DD` date, or nil when it is not a real one.
    static func day(_ text: String) -> Date? {
        guard let parts = LocalDelivery(date: text, time: "00:00").components else { return nil }
        return calendar.date(from: parts)
    }

    static func text(_ day: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
