import Foundation

/// Best-time delivery (docs/campaigns.md "Best time"): each device gets the campaign at the
/// hour of the window it has opened pushes at most, in its own zone, learned from its opens
/// over the last 60 days and shrunk towards the app's hours when it has few; a device with none
/// gets the app's most popular hour of the window. A share of the audience, picked by a hash of
/// device and campaign, gets it at the window's start instead: the fixed-time group the report
/// compares with.
public struct BestTimeWindow: Codable, Sendable, Hashable {
    public static let maximumHours = 24
    /// How far back opens are read.
    public static let lookbackDays = 60
    /// How many opens the app's hours weigh as, beside a device's own: with fewer opens than
    /// this, a device leans towards the app's hours; with many, towards its own.
    public static let priorOpens = 3.0

    /// The window's length from its start (the delivery's `time`), 1 to 24 hours.
    public var windowHours: Int
    /// The fixed-time group, sent at the window's start, in basis points (0 to 5000).
    public var holdoutBasisPoints: Int

    public init(windowHours: Int, holdoutBasisPoints: Int = 0) {
        self.windowHours = windowHours
        self.holdoutBasisPoints = holdoutBasisPoints
    }

    /// The offset, in whole hours after the window's start, at which a device is sent: the hour
    /// of the window whose score (the device's opens at that hour of its day, plus
    /// ``priorOpens`` times the app's share of opens at that hour) is highest; the earliest on
    /// a tie. `own` and `app` count opens by local hour, 0 to 23; `startHour` is the hour of
    /// day the window starts in.
    public func offset(own: [Int], app: [Int], startHour: Int) -> Int {
        let appTotal = app.reduce(0, +)
        var best = 0
        var bestScore = -Double.infinity
        for offset in 0..<min(max(windowHours, 1), Self.maximumHours) {
            let hour = (startHour + offset) % 24
            let prior = appTotal > 0 ? Double(app.indices.contains(hour) ? app[hour] : 0) / Double(appTotal) : 0
            let score = Double(own.indices.contains(hour) ? own[hour] : 0) + Self.priorOpens * prior
            if score > bestScore + 1e-12 {
                best = offset
                bestScore = score
            }
        }
        return best
    }

    /// A device without opens: the app's most popular hour of the window (its start when the
    /// app has no opens either).
    public func defaultOffset(app: [Int], startHour: Int) -> Int {
        offset(own: [], app: app, startHour: startHour)
    }

    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if !(1...Self.maximumHours).contains(windowHours) {
            errors.append(ValidationError(field: "windowHours", reason: "must be a whole number of hours from 1 to 24"))
        }
        if !(0...AudienceSplit.maximumHoldout).contains(holdoutBasisPoints) {
            errors.append(ValidationError(field: "bestTimeHoldoutPercent", reason: "must be a number from 0 to 50"))
        }
        return errors
    }
}
