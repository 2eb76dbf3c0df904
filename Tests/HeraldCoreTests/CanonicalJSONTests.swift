import APNSCore
import Foundation
import HeraldCore
import Testing

@Suite struct CanonicalJSONTests {
    struct Sample: Codable, Equatable {
        var url: String
        var at: Date
        var values: [String: PayloadValue]
    }

    @Test func writesSortedKeysUnescapedSlashesAndMilliseconds() throws {
        let sample = Sample(
            url: "https://example.com/a/b", at: Date(timeIntervalSince1970: 1_796_115_600.125), values: ["b": 1, "a": "x/y"])
        #expect(
            try CanonicalJSON.text(sample)
                == #"{"at":"2026-12-01T09:00:00.125Z","url":"https://example.com/a/b","values":{"a":"x/y","b":1}}"#)
        // Equal values, equal bytes, whatever order they were built in.
        let again = Sample(url: sample.url, at: sample.at, values: ["a": "x/y", "b": 1])
        #expect(try CanonicalJSON.data(again) == CanonicalJSON.data(sample))
        #expect(try CanonicalJSON.decode(Sample.self, from: CanonicalJSON.text(sample)) == sample)
    }

    @Test func readsTimesStoredInWholeSecondsToo() throws {
        let old = #"{"at":"2026-12-01T09:00:00Z","url":"u","values":{}}"#
        #expect(try CanonicalJSON.decode(Sample.self, from: old).at == Date(timeIntervalSince1970: 1_796_115_600))
        #expect(throws: DecodingError.self) {
            try CanonicalJSON.decode(Sample.self, from: #"{"at":"yesterday","url":"u","values":{}}"#)
        }
    }

    @Test func aNonFiniteNumberCannotMakeWritingFail() throws {
        #expect(try CanonicalJSON.text(["x": Double.nan]) == #"{"x":"NaN"}"#)
    }
}
