import Testing

@testable import HeraldStore

/// The counts a batch's new ledger rows add to its chunk (what the counters statement writes).
@Suite struct BatchTallyTests {
    @Test func countsByOutcomeVariantLanguageAndReasonLeavingHeldOutOutOfLanguages() {
        let tally = BatchTally([
            (outcome: "accepted", reason: nil, variant: 0, language: "en"),
            (outcome: "accepted", reason: nil, variant: 1, language: "fr"),
            (outcome: "failed", reason: "BadDeviceToken", variant: 1, language: "en"),
            (outcome: "failed", reason: nil, variant: nil, language: nil),
            (outcome: "deferred", reason: "TooManyRequests", variant: 0, language: "en"),
            (outcome: "heldOut", reason: nil, variant: nil, language: "en"),
            (outcome: "skipped", reason: "quietHours", variant: nil, language: "de"),
            (outcome: "unsent", reason: nil, variant: 0, language: nil),
        ])
        #expect(tally.total == 8)
        #expect(BatchTally.kinds.map(tally.count) == [2, 2, 1, 1, 1])
        #expect(tally.heldOut == 1)
        #expect(tally.byVariant[0]?.byKind == [1, 0, 0, 1, 1])
        #expect(tally.byVariant[1]?.byKind == [1, 1, 0, 0, 0])
        #expect(tally.byVariant.count == 2)
        // Held out rows count in no language; a row without one counts under "".
        #expect(tally.byLanguage["en"]?.byKind == [1, 1, 0, 1, 0])
        #expect(tally.byLanguage[""]?.byKind == [0, 1, 0, 0, 1])
        #expect(tally.byLanguage.values.map { $0.byKind.reduce(0, +) }.reduce(0, +) == 7)
        #expect(tally.failuresByReason == ["BadDeviceToken": 1, "": 1])

        let columns = BatchTally.columns(tally.byLanguage)
        #expect(columns.keys == ["", "de", "en", "fr"])
        #expect(columns.counts[0] == [0, 0, 1, 1])
        #expect(columns.counts[1] == [1, 0, 1, 0])
    }

    @Test func anEmptyBatchAddsNothing() {
        let tally = BatchTally([])
        #expect(tally.total == 0 && tally.heldOut == 0 && tally.byVariant.isEmpty && tally.byLanguage.isEmpty)
        #expect(BatchTally.columns(tally.byVariant).counts == [[], [], [], [], []])
    }
}
