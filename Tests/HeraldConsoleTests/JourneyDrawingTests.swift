import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

/// The journey's drawing: every step below the steps that lead to it, loops back around the
/// side, counters on the boxes, and names from users escaped.
@Suite struct JourneyDrawingTests {
    static func graph(_ json: String) throws -> JourneyDefinition {
        try JourneyDefinition(json: try JSONDecoder().decode(PayloadValue.self, from: Data(json.utf8)))
    }

    @Test func stepsSitBelowEveryStepThatLeadsToThemAndLoopsGoAroundTheSide() throws {
        let graph = try Self.graph(
            """
            {"entry": {"event": {"name": "cart <b>"}}, "start": "remind",
             "steps": {"remind": {"send": {"template": "cart-reminder"}, "next": "opened"},
                       "opened": {"waitFor": {"event": {"name": "came <back>"}}, "timeoutMinutes": 60, "next": "done", "timeoutNext": "split"},
                       "split": {"split": [{"weight": 1, "next": "remind"}, {"weight": 3, "next": "done"}]},
                       "done": {"exit": {}}}}
            """)
        let report = JourneyReport(
            version: nil, entrants: 10, heldOut: 0, inside: 2, goals: 1, heldOutGoals: 0,
            steps: [JourneyReport.Step(id: "remind", kind: "send", entered: 10, deliveries: ["accepted": 9], opened: 4)])
        let drawing = JourneyDrawing(graph: graph, report: report, marked: "split")
        let rows = drawing.boxes.mapValues(\.row)
        #expect(rows == ["remind": 0, "opened": 1, "split": 2, "done": 3], "\(rows)")
        let svg = drawing.svg().text
        #expect(svg.contains("sent 9 · opened 4"))
        #expect(svg.contains("class=\"edge loop\""), "split → remind goes back up around the side")
        #expect(svg.contains("came &lt;back&gt;? ≤ 1 h") && !svg.contains("<back>"))
        #expect(svg.contains("class=\"step step-split marked\""))
        #expect(svg.components(separatedBy: "<g class=\"step").count - 1 == 4)
    }
}
