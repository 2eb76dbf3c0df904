import Foundation

extension App {
    /// The clock a device (or user) with the zone `name` keeps: that zone, else the app's
    /// default, else UTC (an unknown name counts as UTC).
    public func timeZone(named name: String?) -> TimeZone {
        let effective = CampaignZones.effectiveZone(name ?? "", defaultTimeZone: defaultTimeZone)
        return TimeZone(identifier: effective) ?? TimeZone(identifier: "UTC")!
    }

    /// When the app's quiet hours end for the device, when its clock is inside them at
    /// `moment`; nil when it is not (or the app has none).
    public func quietHoursEnd(for device: Device, at moment: Date) -> Date? {
        guard let quiet = quietHours else { return nil }
        let zone = timeZone(named: device.timeZone)
        guard quiet.contains(moment, in: zone) else { return nil }
        return quiet.end(after: moment, in: zone)
    }
}
