import Foundation
import HeraldCore
import Testing

/// Wall-clock moments in time zones, quiet hours and the zone chunks built on them.
@Suite struct LocalTimeTests {
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static func zone(_ name: String) -> TimeZone { TimeZone(identifier: name)! }

    @Test func aLocalMomentFollowsEachZonesDaylightSaving() {
        // Europe moves its clocks forward at 01:00 UTC on 28 March 2027.
        #expect(LocalDelivery(date: "2027-03-27", time: "10:00").instant(in: Self.zone("Europe/Berlin")) == Self.utc("2027-03-27T09:00:00Z"))
        #expect(LocalDelivery(date: "2027-03-28", time: "10:00").instant(in: Self.zone("Europe/Berlin")) == Self.utc("2027-03-28T08:00:00Z"))
        #expect(LocalDelivery(date: "2027-03-28", time: "10:00").instant(in: Self.zone("America/New_York")) == Self.utc("2027-03-28T14:00:00Z"))
        #expect(LocalDelivery(date: "2027-03-28", time: "10:00").instant(in: Self.zone("Asia/Tokyo")) == Self.utc("2027-03-28T01:00:00Z"))
        // 02:30 does not happen in New York on 14 March 2027: the first moment after the gap.
        #expect(LocalDelivery(date: "2027-03-14", time: "02:30").instant(in: Self.zone("America/New_York")) == Self.utc("2027-03-14T07:00:00Z"))
        // 01:30 happens twice on 7 November 2027: the first (still daylight time).
        #expect(LocalDelivery(date: "2027-11-07", time: "01:30").instant(in: Self.zone("America/New_York")) == Self.utc("2027-11-07T05:30:00Z"))
        #expect(LocalDelivery(date: "2027-03-28", time: "00:00").instant(in: Self.zone("UTC")) == Self.utc("2027-03-28T00:00:00Z"))
        let moment = LocalDelivery(date: "2026-12-01", time: "10:00")
        #expect(moment.earliest == Self.utc("2026-11-30T20:00:00Z"))
        #expect(moment.latest == Self.utc("2026-12-01T22:00:00Z"))
    }

    @Test func badDatesAndTimesNameTheirField() {
        let now = Self.utc("2026-11-23T12:00:00Z")
        #expect(LocalDelivery(date: "2026-12-01", time: "10:00").validate(now: now).isEmpty)
        for date in ["2026-02-30", "2026-13-01", "26-12-01", "2026-12-1", "2026/12/01", "", "2026-12-01T10:00"] {
            #expect(LocalDelivery(date: date, time: "10:00").validate(now: now).map(\.field) == ["date"], "\(date)")
        }
        for time in ["24:00", "9:00", "10:60", "10", "10:00:00", "ten", ""] {
            #expect(LocalDelivery(date: "2026-12-01", time: time).validate(now: now).map(\.field) == ["time"], "\(time)")
        }
        #expect(LocalDelivery(date: "2999-01-01", time: "10:00").validate(now: now).map(\.field) == ["date"])
        #expect(LocalDelivery(date: "2026-11-20", time: "10:00").checkSchedulable(now: now)?.field == "delivery.date")
        // 10:00 on 23 November has passed in Tokyo but not in Los Angeles: still schedulable.
        #expect(LocalDelivery(date: "2026-11-23", time: "10:00").checkSchedulable(now: now) == nil)
    }

    @Test func quietHoursCrossMidnightAndEndInTheZonesTime() throws {
        let night = try QuietHours.parse("21:00-08:00").get()
        #expect(night.contains(minute: 21 * 60) && night.contains(minute: 23 * 60) && night.contains(minute: 7 * 60 + 59))
        #expect(!night.contains(minute: 8 * 60) && !night.contains(minute: 20 * 60 + 59))
        let lunch = try QuietHours.parse("12:00-13:30").get()
        #expect(lunch.contains(minute: 12 * 60 + 45) && !lunch.contains(minute: 13 * 60 + 30) && !lunch.contains(minute: 11 * 60))
        let tokyo = Self.zone("Asia/Tokyo")
        #expect(night.contains(Self.utc("2027-03-28T14:00:00Z"), in: tokyo))  // 23:00 in Tokyo
        #expect(!night.contains(Self.utc("2027-03-28T14:00:00Z"), in: Self.zone("Europe/Berlin")))  // 16:00
        #expect(night.end(after: Self.utc("2027-03-28T14:00:00Z"), in: tokyo) == Self.utc("2027-03-28T23:00:00Z"))
        // The night the clocks go forward in Berlin, quiet hours still end at 08:00 local (06:00 UTC).
        #expect(night.end(after: Self.utc("2027-03-27T22:00:00Z"), in: Self.zone("Europe/Berlin")) == Self.utc("2027-03-28T06:00:00Z"))
        #expect(night.description == "21:00-08:00")
        for bad in ["21:00-21:00", "21:00", "9pm-8am", "21:00-24:00", "-", ""] {
            #expect(throws: ValidationError.self, "\(bad)") { try QuietHours.parse(bad).get() }
        }
        #expect(AppSettings(defaultTimeZone: "Mars/Olympus", quietHours: nil).validate().map(\.field) == ["defaultTimeZone"])
        #expect(AppSettings(defaultTimeZone: "Europe/Paris", quietHours: night).validate().isEmpty)
    }

    @Test func zonesGetChunksFromTheirMomentAndLateZonesFollowThePolicy() throws {
        var big = [Int](repeating: 0, count: 256)
        for bucket in 0..<256 { big[bucket] = 250 }  // 64,000 devices: 4 chunks of 16,000
        var small = [Int](repeating: 0, count: 256)
        small[3] = 10
        let counts = ["Asia/Tokyo": big, "America/Los_Angeles": small, "": small]
        let scheduled = Self.utc("2027-03-28T03:00:00Z")  // after Tokyo's 10:00 (01:00 UTC)
        let moment = LocalDelivery(date: "2027-03-28", time: "10:00", latePolicy: .skip)
        let chunks = CampaignZones.chunks(
            counts: counts, localDelivery: moment, scheduledAt: scheduled, defaultTimeZone: "Europe/Berlin")
        let tokyo = chunks.filter { $0.deviceZone == "Asia/Tokyo" }
        #expect(tokyo.count == 4 && tokyo.map(\.size).reduce(0, +) == 64_000)
        #expect(tokyo.allSatisfy { $0.skipReason == "localTimePassed" && $0.notBefore == nil })
        #expect(tokyo.map(\.buckets) == [0...63, 64...127, 128...191, 192...255])
        let angeles = try #require(chunks.first { $0.deviceZone == "America/Los_Angeles" })
        #expect(angeles.size == 10 && angeles.notBefore == Self.utc("2027-03-28T17:00:00Z") && angeles.skipReason == nil)
        let none = try #require(chunks.first { $0.deviceZone.isEmpty })
        #expect(none.timeZone == "Europe/Berlin" && none.notBefore == Self.utc("2027-03-28T08:00:00Z"))
        // Sent late instead of skipped; and quiet hours alone: every chunk at once.
        let sent = CampaignZones.chunks(
            counts: counts, localDelivery: LocalDelivery(date: "2027-03-28", time: "10:00"), scheduledAt: scheduled,
            defaultTimeZone: nil)
        #expect(sent.filter { $0.deviceZone == "Asia/Tokyo" }.allSatisfy { $0.skipReason == nil && $0.notBefore == nil })
        #expect(sent.first { $0.deviceZone.isEmpty }?.timeZone == "UTC")
        let quietOnly = CampaignZones.chunks(counts: counts, localDelivery: nil, scheduledAt: scheduled, defaultTimeZone: nil)
        #expect(quietOnly.count == 6 && quietOnly.allSatisfy { $0.notBefore == nil && $0.skipReason == nil })
    }
}
