import APNSCore
import Foundation
import HeraldCore

/// Reads `POST /v1/series` bodies: the app, a name, the campaign each run copies (the fields of
/// `POST /v1/campaigns` but its send time) and the schedule.
enum SeriesInput {
    static let fields: Set<String> = ["app", "name", "campaign", "schedule"]
    static let scheduleFields: Set<String> = [
        "frequency", "time", "days", "dayOfMonth", "timeZone", "deviceLocalTime", "startsOn", "endsOn", "runs",
    ]

    /// The campaign each run copies, its problems named below `campaign`.
    static func blueprint(_ value: PayloadValue?, app: App, name: String) async throws -> CampaignDraft {
        guard let value, value != .null else { throw Problem.invalidField("campaign", "is required") }
        guard var object = try JSONFields.object(value, field: "campaign") else {
            throw Problem.invalidField("campaign", "must be a JSON object")
        }
        for key in ["sendAt", "delivery"] where object[key] != nil {
            throw Problem.invalidField("campaign.\(key)", "a run is sent when the schedule says; leave it out")
        }
        for key in ["app", "name"] where object[key] != nil {
            throw Problem.invalidField("campaign.\(key)", "is the series' own; give it beside campaign")
        }
        object["app"] = .string(app.bundleID)
        object["name"] = .string(name)
        do {
            return try await CampaignBody.draft(.object(object)) { _ in app }
        } catch var problem as Problem {
            problem.field = problem.field.map { "campaign.\($0)" }
            problem.errors = problem.errors?.map { Problem.FieldError(field: $0.field.map { "campaign.\($0)" }, message: $0.message) }
            problem.detail = "campaign: \(problem.detail)"
            throw problem
        }
    }

    /// The schedule; `now` picks the default first date (today, in the schedule's zone).
    static func schedule(_ value: PayloadValue?, now: Date) throws -> Recurrence {
        guard let value, value != .null else { throw Problem.invalidField("schedule", "is required") }
        guard let object = try JSONFields.object(value, field: "schedule") else {
            throw Problem.invalidField("schedule", "must be a JSON object")
        }
        try JSONFields.refuseUnknown(object, known: scheduleFields, prefix: "schedule")
        let frequencyText = try JSONFields.requiredString(object["frequency"], field: "schedule.frequency")
        guard let frequency = Recurrence.Frequency(rawValue: frequencyText) else {
            throw Problem.invalidField("schedule.frequency", "must be daily, weekly or monthly")
        }
        var days: [Recurrence.Weekday]?
        if let value = object["days"], value != .null {
            guard case .array(let items) = value, !items.isEmpty, items.count <= 7 else {
                throw Problem.invalidField("schedule.days", "must be an array of 1 to 7 of mon, tue, wed, thu, fri, sat, sun")
            }
            days = try items.enumerated().map { index, item in
                guard case .string(let text) = item, let day = Recurrence.Weekday(rawValue: text) else {
                    throw Problem.invalidField("schedule.days[\(index)]", "must be one of mon, tue, wed, thu, fri, sat, sun")
                }
                return day
            }
        }
        let local = try JSONFields.bool(object["deviceLocalTime"], field: "schedule.deviceLocalTime") ?? false
        let zone = try JSONFields.string(object["timeZone"], field: "schedule.timeZone")
        if local, zone != nil {
            throw Problem.invalidField("schedule.timeZone", "a schedule in each device's local time has no zone")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone ?? "UTC") ?? TimeZone(secondsFromGMT: 0)!
        let today = calendar.dateComponents([.year, .month, .day], from: now)
        let recurrence = Recurrence(
            frequency: frequency, time: try JSONFields.requiredString(object["time"], field: "schedule.time"), days: days,
            dayOfMonth: try JSONFields.int(object["dayOfMonth"], field: "schedule.dayOfMonth"), timeZone: zone ?? "UTC",
            deviceLocalTime: local,
            startsOn: try JSONFields.string(object["startsOn"], field: "schedule.startsOn")
                ?? String(format: "%04d-%02d-%02d", today.year!, today.month!, today.day!),
            endsOn: try JSONFields.string(object["endsOn"], field: "schedule.endsOn"),
            runs: try JSONFields.int(object["runs"], field: "schedule.runs"))
        try JSONFields.check(
            recurrence.validate(now: now).map { ValidationError(field: "schedule.\($0.field)", reason: $0.reason) },
            what: "schedule")
        return recurrence
    }
}
