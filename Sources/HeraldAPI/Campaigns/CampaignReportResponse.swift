import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `GET /v1/campaigns/{id}/report`: a campaign's messages and holdout side by side.
struct CampaignReportResponse: ResponseEncodable {
    var id: String
    var state: String
    var holdoutPercent: Double
    var attributionWindowHours: Int
    var variants: [Line]
    var holdout: Line?
    var comparisons: [Comparison]
    /// Opens by the language the notification was rendered in.
    var openedByLanguage: [String: Int]
    /// A best-time campaign with a fixed-time group: the devices sent at their best hour
    /// (`bestTime`) and at the window's start (`fixedTime`); `comparisons` compares them.
    var timing: [Line]?

    /// A rate with its 95 % Wilson interval; rate and interval are absent for an empty group.
    struct Rate: Encodable {
        var count: Int
        var of: Int
        var rate: Double?
        var low: Double?
        var high: Double?

        init(_ proportion: Proportion) {
            count = proportion.count
            of = proportion.total
            rate = proportion.rate
            low = proportion.interval?.lowerBound
            high = proportion.interval?.upperBound
        }
    }

    struct Line: Encodable {
        var name: String
        var weight: Int?
        var assigned: Int
        var sent: Int
        /// Opened of sent; absent for the holdout.
        var opened: Rate?
        var conversions: Int
        /// Devices that converted, of those assigned.
        var converted: Rate
        var conversionValue: Double

        init(_ line: CampaignReport.Line) {
            name = line.name
            weight = line.weight
            assigned = line.assigned
            sent = line.sent
            opened = line.opened.map(Rate.init)
            conversions = line.conversions
            converted = Rate(line.converted)
            conversionValue = line.value
        }
    }

    /// `a`'s rate minus `b`'s, a 95 % interval for it, and a two-sided z-test.
    struct Comparison: Encodable {
        var metric: String
        var a: String
        var b: String
        var difference: Double
        var low: Double
        var high: Double
        var z: Double
        var pValue: Double
        var significant: Bool

        init(_ comparison: CampaignReport.Comparison) {
            metric = comparison.metric.rawValue
            a = comparison.a
            b = comparison.b
            difference = comparison.result.difference
            low = comparison.result.interval.lowerBound
            high = comparison.result.interval.upperBound
            z = comparison.result.z
            pValue = comparison.result.pValue
            significant = comparison.result.significant
        }
    }

    init(campaign: Campaign, report: CampaignReport) {
        id = campaign.publicID.canonicalString
        state = campaign.state.rawValue
        holdoutPercent = Double(campaign.holdoutBasisPoints) / 100
        attributionWindowHours = campaign.attributionWindow / 3600
        variants = report.variants.map(Line.init)
        holdout = report.holdout.map(Line.init)
        comparisons = report.comparisons.map(Comparison.init)
        openedByLanguage = report.openedByLanguage
        timing = report.timing.isEmpty ? nil : report.timing.map(Line.init)
    }
}
