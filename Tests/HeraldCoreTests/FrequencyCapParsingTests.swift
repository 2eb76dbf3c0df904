import HeraldCore
import Testing

@Suite struct FrequencyCapParsingTests {
    @Test func capsParseAndWindowsBeyondAnIntAreRefusedNotComputed() throws {
        #expect(try FrequencyCap.parse("3/7d").get() == FrequencyCap(limit: 3, window: 7 * 86_400))
        #expect(try FrequencyCap.parse("1/12h").get() == FrequencyCap(limit: 1, window: 12 * 3600))
        // The schemathesis inputs that overflowed the multiplication (and crashed the process).
        for text in ["7/08852490990h", "45/059013467238054588442086h", "1/9223372036854775807d", "1/106751991167301d", "0366/0265877743963d"] {
            guard case .failure(let error) = FrequencyCap.parse(text) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error.field == "frequencyCaps" || error.field == "window" || error.field == "limit", "\(text): \(error)")
        }
        #expect(throws: ValidationError.self) { try FrequencyCap.parse("91/91d").get() }
    }
}
