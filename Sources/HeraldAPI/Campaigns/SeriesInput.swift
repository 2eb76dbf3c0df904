import APNSCore
import Foundation
import HeraldCore

/// Reads `POST /v1/series` bodies: the app, a name, the campaign each run copies (the fields of
/// `POST /v1/campaigns` but its send time) and the schedule.
enum SeriesInput {
    /// `POST /v1/series` (and a series file).
    struct Body: Decodable {
        var app: String
        var name: String
        var campaign: PayloadValue?
        var schedule: PayloadValue?
    }

    /// The campaign each run copies, its problems named below `campaign`.
    static func blueprint(_ value: PayloadValue?, app: App, name: String) async throws -> CampaignDraft {
        guard let value, value != .null else { throw Problem.invalidField("campaign", "is required") }
        guard case .object(var object) = value else { throw Problem.invalidField("campaign", "must be a JSON object") }
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

    /// A schedule as the body gives it.
    struct ScheduleBody: Decodable {
        var frequency: Recurrence.Frequency
        var time: String
        var days: [Recurrence.Weekday]?
        var dayOfMonth: Int?
        var timeZone: String?
        var deviceLocalTime: Bool?
        var startsOn: String?
        var endsOn: String?
        var runs: Int?
    }

    /// The schedule; `now` picks the default first date (today, in the schedule's zone).
    static func schedule(_ value: PayloadValue?, now: Date) throws -> Recurrence {
        guard let value, value != .null else { throw Problem.invalidField("schedule", "is required") }
        let body = try RequestDecoding.decode(ScheduleBody.self, from: value, field: "schedule")
        if let days = body.days, !(1...7).contains(days.count) {
            throw Problem.invalidField("schedule.days", "must be an array of 1 to 7 of mon, tue, wed, thu, fri, sat, sun")
        }
        let local = body.deviceLocalTime ?? false
        if local, body.timeZone != nil {
            throw Problem.invalidField("schedule.timeZone", "a schedule in each device's local time has no zone")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: body.timeZone ?? "UTC") ?? TimeZone(secondsFromGMT: 0)!
        let today = calendar.dateComponents([.year, .month, .day], from: now)
        let recurrence = Recurrence(
            frequency: body.frequency, time: body.time, days: body.days, dayOfMonth: body.dayOfMonth,
            timeZone: body.timeZone ?? "UTC", deviceLocalTime: local,
            startsOn: body.startsOn ?? String(format: "%04d-%02d-%02d", today.year!, today.month!, today.day!),
            endsOn: body.endsOn, runs: body.runs)
        try JSONFields.check(
            recurrence.validate(now: now).map { ValidationError(field: "schedule.\($0.field)", reason: $0.reason) },
            what: "schedule")
        return recurrence
    }
}
