import Foundation

/// What a campaign did, message by message and against its holdout: sent, opened, converted,
/// with intervals and significance tests.
///
/// Open rates are over notifications APNs accepted (only those can be opened). Conversion
/// rates are over devices assigned to the group, whatever became of their notification,
/// because that is what the holdout can be compared with: it holds out devices of every kind,
/// including those whose notification would have been skipped or refused.
public struct CampaignReport: Sendable, Hashable {
    public struct Line: Sendable, Hashable {
        public var name: String
        /// The message's weight; nil for the holdout.
        public var weight: Int?
        /// Devices assigned to the group so far.
        public var assigned: Int
        /// Notifications APNs accepted.
        public var sent: Int
        /// Opened of sent; nil for the holdout.
        public var opened: Proportion?
        /// Conversion events.
        public var conversions: Int
        /// Devices that converted, of those assigned.
        public var converted: Proportion
        /// The conversions' values, summed.
        public var value: Double
    }

    /// Two groups compared on one rate.
    public struct Comparison: Sendable, Hashable {
        public enum Metric: String, Sendable, Hashable {
            case openRate, conversionRate
        }

        public var metric: Metric
        public var a: String
        public var b: String
        public var result: ProportionComparison
    }

    /// The holdout's line name.
    public static let holdoutName = "holdout"

    public var variants: [Line]
    /// Nil when the campaign holds no one out.
    public var holdout: Line?
    /// Each message against the holdout (conversion rate), and each pair of messages (open and
    /// conversion rates). Comparisons with an empty group are left out.
    public var comparisons: [Comparison]
    public var openedByLanguage: [String: Int]
    /// A best-time campaign with a fixed-time group: `bestTime` and `fixedTime`, side by side.
    public var timing: [Line]
    public static let bestTimeName = "bestTime"
    public static let fixedTimeName = "fixedTime"

    public init(campaign: Campaign, events: CampaignEventTotals) {
        let counters = campaign.counters
        variants = campaign.messages.enumerated().map { index, message in
            let recorded = counters.variants.indices.contains(index) ? counters.variants[index] : VariantCounters(name: message.name)
            let group = events.group(index)
            return Line(
                name: message.name, weight: message.weight, assigned: recorded.assigned, sent: recorded.accepted,
                opened: Proportion(count: group.opened, total: recorded.accepted), conversions: group.conversions,
                converted: Proportion(count: group.convertedDevices, total: recorded.assigned), value: group.value)
        }
        if campaign.holdoutBasisPoints > 0 {
            let group = events.group(nil)
            holdout = Line(
                name: Self.holdoutName, weight: nil, assigned: counters.heldOut, sent: 0, opened: nil,
                conversions: group.conversions, converted: Proportion(count: group.convertedDevices, total: counters.heldOut),
                value: group.value)
        }
        var comparisons = [Comparison]()
        if let holdout {
            for line in variants {
                if let result = ProportionComparison(line.converted, holdout.converted) {
                    comparisons.append(Comparison(metric: .conversionRate, a: line.name, b: holdout.name, result: result))
                }
            }
        }
        for (i, a) in variants.enumerated() {
            for b in variants[(i + 1)...] {
                if let ao = a.opened, let bo = b.opened, let result = ProportionComparison(ao, bo) {
                    comparisons.append(Comparison(metric: .openRate, a: a.name, b: b.name, result: result))
                }
                if let result = ProportionComparison(a.converted, b.converted) {
                    comparisons.append(Comparison(metric: .conversionRate, a: a.name, b: b.name, result: result))
                }
            }
        }
        var timing = [Line]()
        for (name, group) in [(Self.bestTimeName, events.bestTime), (Self.fixedTimeName, events.fixedTime)] {
            guard let group else { continue }
            timing.append(
                Line(
                    name: name, weight: nil, assigned: group.assigned, sent: group.sent,
                    opened: Proportion(count: group.opened, total: group.sent), conversions: group.conversions,
                    converted: Proportion(count: group.convertedDevices, total: group.assigned), value: group.value))
        }
        if timing.count == 2 {
            // The lift of sending at each device's best hour over sending at the window's start.
            let (best, fixed) = (timing[0], timing[1])
            if let a = best.opened, let b = fixed.opened, let result = ProportionComparison(a, b) {
                comparisons.append(Comparison(metric: .openRate, a: best.name, b: fixed.name, result: result))
            }
            if let result = ProportionComparison(best.converted, fixed.converted) {
                comparisons.append(Comparison(metric: .conversionRate, a: best.name, b: fixed.name, result: result))
            }
        }
        self.timing = timing
        self.comparisons = comparisons
        openedByLanguage = events.openedByLanguage
    }
}
