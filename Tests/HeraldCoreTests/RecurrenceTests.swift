import Foundation
import HeraldCore
import Testing

/// When the runs of a recurring campaign fall (docs/campaigns.md "Recurring campaigns").
struct RecurrenceTests {
    static func date(_ text: String) -> Date { RFC3339.parse(text)! }

    @Test func aDailyScheduleRunsEveryDayAtItsTimeInItsZone() {
        let daily = Recurrence(frequency: .daily, time: "10:00", timeZone: "Europe/Paris", startsOn: "2027-01-30")
        var dates = [String]()
        var next = daily.occurrence(after: nil)
        while let run = next, dates.count < 3 {
            dates.append(run.date)
            next = daily.occurrence(after: run.date)
        }
        #expect(dates == ["2027-01-30", "2027-01-31", "2027-02-01"])
        // Paris is UTC+1 in winter, UTC+2 in summer.
        #expect(daily.due(on: "2027-01-30") == Self.date("2027-01-30T09:00:00Z"))
        #expect(daily.due(on: "2027-07-01") == Self.date("2027-07-01T08:00:00Z"))
    }

    @Test func aTimeTheClocksSkipRunsAtTheFirstMomentAfterTheGap() {
        // 2027-03-28: Paris goes from 02:00 to 03:00.
        let daily = Recurrence(frequency: .daily, time: "02:30", timeZone: "Europe/Paris", startsOn: "2027-03-27")
        #expect(daily.due(on: "2027-03-28") == Self.date("2027-03-28T01:00:00Z"))
        #expect(daily.due(on: "2027-03-27") == Self.date("2027-03-27T01:30:00Z"))
    }

    @Test func aWeeklyScheduleRunsOnItsDaysOnly() {
        // 2027-03-01 is a Monday.
        let weekly = Recurrence(frequency: .weekly, time: "09:00", days: [.mon, .thu, .sun], startsOn: "2027-03-01")
        var dates = [String]()
        var next = weekly.occurrence(after: nil)
        while let run = next, dates.count < 5 {
            dates.append(run.date)
            next = weekly.occurrence(after: run.date)
        }
        #expect(dates == ["2027-03-01", "2027-03-04", "2027-03-07", "2027-03-08", "2027-03-11"])
    }

    @Test func aMonthlyScheduleOnThe31stRunsOnEachMonthsLastDay() {
        let monthly = Recurrence(frequency: .monthly, time: "12:00", dayOfMonth: 31, startsOn: "2027-01-01")
        var dates = [String]()
        var next = monthly.occurrence(after: nil)
        while let run = next, dates.count < 4 {
            dates.append(run.date)
            next = monthly.occurrence(after: run.date)
        }
        #expect(dates == ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"])
    }

    @Test func aScheduleEndsOnItsLastDate() {
        let daily = Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-01-01", endsOn: "2027-01-02")
        #expect(daily.occurrence(after: "2027-01-01")?.date == "2027-01-02")
        #expect(daily.occurrence(after: "2027-01-02") == nil)
    }

    @Test func aLocalTimeRunIsDueWhenTheFirstZoneReachesItsTime() {
        let local = Recurrence(frequency: .daily, time: "10:00", deviceLocalTime: true, startsOn: "2027-01-01")
        #expect(local.timeZone == nil)
        // UTC+14 reaches 10:00 on 1 January at 20:00 UTC on 31 December; UTC-12 at 22:00 UTC on 1 January.
        #expect(local.due(on: "2027-01-01") == Self.date("2026-12-31T20:00:00Z"))
        #expect(local.lastChance(on: "2027-01-01") == Self.date("2027-01-01T22:00:00Z"))
    }

    @Test func theNextRunDueAfterAMomentSkipsThoseAlreadyDue() {
        let daily = Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-01-01")
        #expect(daily.occurrence(dueAfter: Self.date("2027-01-05T10:00:00Z"))?.date == "2027-01-06")
        #expect(daily.occurrence(dueAfter: Self.date("2027-01-05T09:59:59Z"))?.date == "2027-01-05")
        // Before the first date: the first date.
        #expect(daily.occurrence(dueAfter: Self.date("2026-06-01T00:00:00Z"))?.date == "2027-01-01")
    }

    @Test func badSchedulesNameTheirField() {
        let now = Self.date("2027-01-01T00:00:00Z")
        let cases: [(Recurrence, String)] = [
            (Recurrence(frequency: .daily, time: "25:00", startsOn: "2027-01-01"), "time"),
            (Recurrence(frequency: .weekly, time: "10:00", startsOn: "2027-01-01"), "days"),
            (Recurrence(frequency: .monthly, time: "10:00", dayOfMonth: 32, startsOn: "2027-01-01"), "dayOfMonth"),
            (Recurrence(frequency: .monthly, time: "10:00", startsOn: "2027-01-01"), "dayOfMonth"),
            (Recurrence(frequency: .daily, time: "10:00", days: [.mon], startsOn: "2027-01-01"), "days"),
            (Recurrence(frequency: .daily, time: "10:00", timeZone: "Mars/Olympus", startsOn: "2027-01-01"), "timeZone"),
            (Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-02-30"), "startsOn"),
            (Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-02-01", endsOn: "2027-01-01"), "endsOn"),
            (Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-01-01", runs: 0), "runs"),
            // Every run is in the past.
            (Recurrence(frequency: .daily, time: "10:00", startsOn: "2026-01-01", endsOn: "2026-02-01"), "endsOn"),
            // A Monday-only schedule between a Tuesday and a Sunday has no run.
            (Recurrence(frequency: .weekly, time: "10:00", days: [.mon], startsOn: "2027-03-02", endsOn: "2027-03-07"), "endsOn"),
            (Recurrence(frequency: .daily, time: "10:00", startsOn: "2999-01-01"), "startsOn"),
        ]
        for (recurrence, field) in cases {
            #expect(recurrence.validate(now: now).first?.field == field, "\(recurrence)")
        }
        #expect(Recurrence(frequency: .daily, time: "10:00", startsOn: "2027-01-01").validate(now: now).isEmpty)
    }
}
