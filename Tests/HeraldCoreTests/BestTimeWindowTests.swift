import Foundation
import HeraldCore
import Testing

/// Which hour of its window a device gets a best-time campaign at (docs/campaigns.md "Best time").
struct BestTimeWindowTests {
    static func hours(_ counts: [Int: Int]) -> [Int] {
        (0..<24).map { counts[$0] ?? 0 }
    }

    @Test func aDeviceGetsTheHourItOpensAtMost() {
        let window = BestTimeWindow(windowHours: 12)
        // 08:00 + 12 hours; opens at 19:00 are 11 hours in.
        #expect(window.offset(own: Self.hours([19: 5, 10: 1]), app: Self.hours([12: 100]), startHour: 8) == 11)
    }

    @Test func fewOpensLeanTowardsTheAppsHours() {
        let window = BestTimeWindow(windowHours: 12)
        let app = Self.hours([12: 50, 9: 5, 14: 45])
        // One open at 09:00 weighs less than the app's strong noon (3 × 0.5 = 1.5 > 1 + 3 × 0.05).
        #expect(window.offset(own: Self.hours([9: 1]), app: app, startHour: 8) == 4)
        // Three opens at 09:00 outweigh it.
        #expect(window.offset(own: Self.hours([9: 3]), app: app, startHour: 8) == 1)
    }

    @Test func aDeviceWithoutOpensGetsTheAppsMostPopularHourOfTheWindow() {
        let window = BestTimeWindow(windowHours: 6)
        // The app's peak (21:00) is outside 08:00-14:00: the best hour inside it counts.
        let app = Self.hours([21: 90, 13: 10, 9: 5])
        #expect(window.defaultOffset(app: app, startHour: 8) == 5)
        // No opens anywhere: the window's start.
        #expect(window.defaultOffset(app: Self.hours([:]), startHour: 8) == 0)
    }

    @Test func aWindowCrossingMidnightCountsHoursOfTheNextDay() {
        let window = BestTimeWindow(windowHours: 8)
        #expect(window.offset(own: Self.hours([2: 4]), app: Self.hours([:]), startHour: 20) == 6)
    }

    @Test func windowsOutsideOneToTwentyFourHoursAreRefused() {
        #expect(BestTimeWindow(windowHours: 0).validate().first?.field == "windowHours")
        #expect(BestTimeWindow(windowHours: 25).validate().first?.field == "windowHours")
        #expect(BestTimeWindow(windowHours: 24, holdoutBasisPoints: 5001).validate().first?.field == "bestTimeHoldoutPercent")
        #expect(BestTimeWindow(windowHours: 1, holdoutBasisPoints: 5000).validate().isEmpty)
    }
}
