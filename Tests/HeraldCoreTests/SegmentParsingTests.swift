import APNSCore
import Foundation
import HeraldCore
import Testing

@Suite struct SegmentParsingTests {
    static func parse(_ json: String) throws -> Segment {
        try Segment(json: try JSONReader.parse(Array(json.utf8)))
    }

    @Test func everyConditionReadsAsWritten() throws {
        let segment = try Self.parse(
            """
            {"all": [
              {"attribute": "cartValue", "gt": 50},
              {"attribute": "plan", "in": ["pro", "team"]},
              {"attribute": "trialEnds", "lte": "2026-12-31T00:00:00Z"},
              {"any": [{"language": "pt"}, {"language": "en-GB", "match": "first"}]},
              {"not": {"opened": {"withinDays": 30}}},
              {"received": {"campaign": "3C4133DF-2DBA-418C-88EF-92260F82C4E8"}},
              {"converted": {"event": "purchase", "minimumValue": 20.5, "withinDays": 7}},
              {"registered": {"withinDays": 14}},
              {"authorization": {"statuses": ["authorized", "provisional"], "sound": true}},
              {"userID": {"exists": true}},
              {"timeZone": ["Europe/Lisbon"]},
              {"environment": "production"},
              {"event": {"name": "cart_abandoned", "withinDays": 7}}
            ]}
            """)
        guard case .all(let parts) = segment else {
            Issue.record("not an all: \(segment)")
            return
        }
        #expect(parts.count == 13)
        #expect(parts[12] == .event(name: "cart_abandoned", within: Segment.DayWindow(days: 7)))
        #expect(try Segment(json: parts[12].json) == parts[12])
        #expect(parts[0] == .attribute("cartValue", .compare(.gt, .number(50))))
        #expect(parts[2] == .attribute("trialEnds", .compare(.lte, .date(Date(timeIntervalSince1970: 1_798_675_200)))))
        #expect(parts[3] == .any([.language(LanguageTag("pt")!, firstOnly: false), .language(LanguageTag("en-GB")!, firstOnly: true)]))
        #expect(parts[4] == .not(.opened(campaign: nil, within: Segment.DayWindow(days: 30))))
        #expect(parts[6] == .converted(event: "purchase", minimumValue: 20.5, within: Segment.DayWindow(days: 7)))
    }

    @Test func badConditionsNameTheirJSONPath() {
        let cases: [(String, String)] = [
            (#"{"attribute": "plan", "like": "p%"}"#, "segment.like"),
            (#"{"attribute": "plan", "eq": "pro", "ne": "team"}"#, "segment"),
            (#"{"attribute": "cartValue", "gt": "lots"}"#, "segment.gt"),
            (#"{"attribute": "plan", "eq": {"a": 1}}"#, "segment.eq"),
            (#"{"attribute": "plan", "in": []}"#, "segment.in"),
            (#"{"attribute": "", "exists": true}"#, "segment.attribute"),
            (#"{"all": [{"language": "not a tag!"}]}"#, "segment.all[0].language"),
            (#"{"all": []}"#, "segment.all"),
            (#"{"any": [{"opened": {"withinDays": 0}}]}"#, "segment.any[0].opened.withinDays"),
            (#"{"any": [{"opened": {"withinDays": 2.5}}]}"#, "segment.any[0].opened.withinDays"),
            (#"{"opened": {"campaign": "nope"}}"#, "segment.opened.campaign"),
            (#"{"converted": {"campaign": "3C4133DF-2DBA-418C-88EF-92260F82C4E8"}}"#, "segment.converted.campaign"),
            (#"{"registered": {"after": "yesterday"}}"#, "segment.registered.after"),
            (#"{"timeZone": ["Mars/Olympus"]}"#, "segment.timeZone[0]"),
            (#"{"environment": "staging"}"#, "segment.environment"),
            (#"{"authorization": {"statuses": ["maybe"]}}"#, "segment.authorization.statuses[0]"),
            (#"{"userID": {"in": [""]}}"#, "segment.userID.in[0]"),
            (#"{"colour": "red"}"#, "segment"),
            (#"{"not": {"environment": "sandbox"}, "all": []}"#, "segment"),
            (#"[1]"#, "segment"),
            (#"{"event": {"withinDays": 7}}"#, "segment.event.name"),
            (#"{"event": {"name": "a\u0001b"}}"#, "segment.event.name"),
            (#"{"event": {"name": "x", "minimumValue": 3}}"#, "segment.event.minimumValue"),
        ]
        for (json, field) in cases {
            do {
                _ = try Self.parse(json)
                Issue.record("accepted \(json)")
            } catch let error as ValidationError {
                #expect(error.field == field, "\(json): \(error)")
            } catch {
                Issue.record("\(json): \(error)")
            }
        }
    }

    @Test func nestingAndSizeAreBounded() throws {
        var deep = #"{"environment": "sandbox"}"#
        for _ in 0..<Segment.maximumDepth { deep = #"{"not": \#(deep)}"# }
        #expect(throws: ValidationError.self) { try Self.parse(deep) }
        let many = Array(repeating: #"{"environment": "sandbox"}"#, count: Segment.maximumConditions).joined(separator: ",")
        #expect(throws: ValidationError.self) { try Self.parse(#"{"any": [\#(many)]}"#) }
        let enough = Array(repeating: #"{"environment": "sandbox"}"#, count: Segment.maximumConditions - 1).joined(separator: ",")
        _ = try Self.parse(#"{"any": [\#(enough)]}"#)
    }
}
