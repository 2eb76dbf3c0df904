import Foundation
import HeraldCore
import Testing

@Suite struct HeraldReasonTests {
    /// docs/data-model.md "Reasons" lists every reason with its outcome, and nothing else.
    @Test func theDocsListEveryReasonWithItsOutcome() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/data-model.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var documented = [String: String]()
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[1] == "skipped" || cells[1] == "failed" else { continue }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        let expected = Dictionary(uniqueKeysWithValues: HeraldReason.allCases.map { ($0.rawValue, $0.isSkip ? "skipped" : "failed") })
        #expect(documented == expected)
    }

    @Test func outcomesCarryTheOneSpelling() {
        #expect(DeliveryOutcome.skipped(.notAuthorized) == .skipped(reason: "notAuthorized"))
        #expect(DeliveryOutcome.failed(.renderFailed) == .failed(status: nil, reason: "RenderFailed"))
        #expect(SendFailure(.noSender, detail: "x").reason == "NoSender")
        #expect(Set(HeraldReason.allCases.map(\.rawValue)).count == HeraldReason.allCases.count)
    }
}
