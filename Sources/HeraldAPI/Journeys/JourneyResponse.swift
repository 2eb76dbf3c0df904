import APNSCore
import Foundation
import HeraldCore
import Hummingbird

struct JourneyResponse: ResponseEncodable {
    var app: String
    var name: String
    var description: String?
    var state: String
    /// The latest version, the one new entrants take (nil before activation), and the one shown.
    var version: Int
    var liveVersion: Int?
    var shownVersion: Int
    var journey: PayloadValue
    var createdBy: String
    var createdAt: Date
    var updatedAt: Date

    init(_ journey: Journey, bundleID: String) {
        app = bundleID
        name = journey.name
        description = journey.description
        state = journey.state.rawValue
        version = journey.version
        liveVersion = journey.liveVersion
        shownVersion = journey.shownVersion
        self.journey = journey.definition
        createdBy = journey.createdBy
        createdAt = journey.createdAt
        updatedAt = journey.updatedAt
    }
}

struct JourneyListResponse: ResponseEncodable {
    var journeys: [JourneyResponse]
}

struct JourneyCheckResponse: ResponseEncodable {
    var valid: Bool
    var steps: Int
}

struct JourneyReportResponse: ResponseEncodable {
    struct Step: Codable, Sendable {
        var id: String
        var kind: String
        var entered: Int
        var waiting: Int
        var paths: [String: Int]
        var deliveries: [String: Int]?
        var opened: Int?
        var converted: Int?
        var notSent: [String: Int]?
    }

    /// The goal reached by entrants and by held-out users, and the lift with its test.
    struct Goal: Codable, Sendable {
        var entrants: Int
        var reached: Int
        var rate: Double
        var heldOut: Int
        var heldOutReached: Int
        var heldOutRate: Double?
        /// Entrants' rate minus held-out users' (with its 95 % interval), and whether it is more than chance.
        var difference: Double?
        var differenceInterval: [Double]?
        var pValue: Double?
        var significant: Bool?
    }

    var name: String
    var version: Int?
    var inside: Int
    var goal: Goal
    var steps: [Step]

    init(name: String, report: JourneyReport) {
        self.name = name
        version = report.version
        inside = report.inside
        let rate = report.entrants > 0 ? Double(report.goals) / Double(report.entrants) : 0
        let heldOutRate = report.heldOut > 0 ? Double(report.heldOutGoals) / Double(report.heldOut) : nil
        let test = ProportionComparison(
            Proportion(count: report.goals, total: report.entrants), Proportion(count: report.heldOutGoals, total: report.heldOut))
        goal = Goal(
            entrants: report.entrants, reached: report.goals, rate: rate, heldOut: report.heldOut,
            heldOutReached: report.heldOutGoals, heldOutRate: heldOutRate,
            difference: test?.difference, differenceInterval: test.map { [$0.interval.lowerBound, $0.interval.upperBound] },
            pValue: test?.pValue, significant: test?.significant)
        steps = report.steps.map { step in
            let sends = step.kind == "send"
            return Step(
                id: step.id, kind: step.kind, entered: step.entered, waiting: step.waiting, paths: step.paths,
                deliveries: sends ? step.deliveries : nil, opened: sends ? step.opened : nil,
                converted: sends ? step.converted : nil, notSent: step.notSent.isEmpty ? nil : step.notSent)
        }
    }
}

struct JourneyDeliveriesResponse: ResponseEncodable {
    /// A device's row: never its whole token.
    struct Row: Codable, Sendable {
        var step: String
        var version: Int
        var userID: String?
        var tokenSuffix: String
        var outcome: String
        var status: Int?
        var reason: String?
        var apnsID: UUID?
        var language: String?
        var sentAt: Date
        var openedAt: Date?

        init(_ row: JourneyDelivery) {
            step = row.step
            version = row.version
            userID = row.userID
            tokenSuffix = String(row.token.hex.suffix(8))
            outcome = row.outcome.kind.rawValue
            status = row.outcome.status
            reason = row.outcome.reason
            apnsID = row.apnsID
            language = row.language
            sentAt = row.sentAt
            openedAt = row.openedAt
        }
    }

    var deliveries: [Row]
    var nextCursor: String?
}
