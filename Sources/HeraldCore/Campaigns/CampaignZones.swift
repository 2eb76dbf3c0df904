import Foundation

/// How a campaign sent in zones (at a local time, or under quiet hours) is split: one or more
/// chunks per time zone, each claimable from its zone's moment. Pure, so the rules are
/// unit-tested; the store counts the devices and writes the chunks.
public enum CampaignZones {
    /// Devices per chunk above which a zone gets more chunks (up to 16: as many workers).
    public static let devicesPerChunk = 25_000

    /// One chunk to create.
    public struct Chunk: Sendable, Hashable {
        /// The devices' registered zone; empty for devices without one.
        public var deviceZone: String
        /// The zone their clock is read in.
        public var timeZone: String
        public var buckets: ClosedRange<Int>
        /// Nil: claimable at once.
        public var notBefore: Date?
        /// Devices of the zone in these buckets.
        public var size: Int
        /// Set when the chunk's devices are recorded skipped, unsent.
        public var skipReason: String?
        /// A best-time chunk's hour after the window's start.
        public var sendOffset: Int?
    }

    /// The name of the zone a device's clock is read in: its own, or the app's default, or UTC.
    public static func effectiveZone(_ deviceZone: String, defaultTimeZone: String?) -> String {
        let name = deviceZone.isEmpty ? (defaultTimeZone ?? "UTC") : deviceZone
        return TimeZone(identifier: name) == nil ? "UTC" : name
    }

    /// The chunks of an audience counted per zone and bucket (`counts[zone][bucket]`, 256
    /// buckets), for a local-time moment (nil: at once, as under quiet hours only) of a
    /// campaign scheduled at `scheduledAt`.
    /// For best time, `sendOffset` hours after the window's start (the local moment).
    public static func chunks(
        counts: [String: [Int]], localDelivery: LocalDelivery?, scheduledAt: Date, defaultTimeZone: String?,
        sendOffset: Int? = nil
    ) -> [Chunk] {
        var chunks = [Chunk]()
        for zone in counts.keys.sorted() {
            let perBucket = counts[zone] ?? []
            let total = perBucket.reduce(0, +)
            guard total > 0 else { continue }
            let timeZone = effectiveZone(zone, defaultTimeZone: defaultTimeZone)
            var notBefore = localDelivery.flatMap { local in TimeZone(identifier: timeZone).flatMap { local.instant(in: $0) } }
                .map { $0.addingTimeInterval(Double(sendOffset ?? 0) * 3600) }
            var skipReason: String?
            if let moment = notBefore, moment < scheduledAt {
                // Its moment had passed when the campaign was scheduled.
                notBefore = nil
                if localDelivery?.latePolicy == .skip { skipReason = HeraldReason.localTimePassed.rawValue }
            }
            var parts = 1
            while parts < CampaignChunking.chunkCount, total / parts > devicesPerChunk { parts *= 2 }
            let width = DeviceBucket.count / parts
            for part in 0..<parts {
                let range = (part * width)...(part * width + width - 1)
                let size = range.reduce(0) { $0 + (perBucket.indices.contains($1) ? perBucket[$1] : 0) }
                guard size > 0 else { continue }
                chunks.append(
                    Chunk(
                        deviceZone: zone, timeZone: timeZone, buckets: range, notBefore: notBefore, size: size,
                        skipReason: skipReason, sendOffset: sendOffset))
            }
        }
        return chunks
    }
}
