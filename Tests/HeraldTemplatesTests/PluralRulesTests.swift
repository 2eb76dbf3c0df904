import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct PluralRulesTests {
    /// Every example CLDR publishes with its rules (`@integer 2~4, 22~24, … @decimal 0.2~0.4`),
    /// for every language, lands in the category it is listed under.
    @Test func everyLanguageAgreesWithCLDRsOwnExamples() throws {
        #expect(CLDRPluralSamples.version == PluralRules.cldrVersion)
        var checked = 0
        var languages = Set<String>()
        for line in CLDRPluralSamples.source.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 2)
            let language = try #require(LanguageTag(String(fields[0])), "\(fields[0])")
            let expected = try #require(PluralCategory(rawValue: String(fields[1])))
            for example in Self.expand(String(fields[2])) {
                let operands = try #require(PluralOperands(example), "\(example)")
                let category = PluralRules.category(for: language, operands)
                #expect(category == expected, "\(fields[0]) \(example): \(category), CLDR says \(expected)")
                checked += 1
            }
            languages.insert(String(fields[0]))
        }
        #expect(languages.count == 219)
        #expect(checked > 10_000)
    }

    /// The table: the numbers a notification counts, in languages with 1 to 6 forms.
    @Test(arguments: [
        ("en", ["other", "one", "other", "other", "other", "other", "other", "other", "other", "other", "other"]),
        ("fr", ["one", "one", "other", "other", "other", "other", "other", "other", "other", "other", "one"]),
        ("ru", ["many", "one", "few", "few", "many", "many", "one", "few", "many", "one", "other"]),
        ("pl", ["many", "one", "few", "few", "many", "many", "many", "few", "many", "many", "other"]),
        ("cs", ["other", "one", "few", "few", "other", "other", "other", "other", "other", "other", "many"]),
        ("ar", ["zero", "one", "two", "few", "few", "many", "many", "many", "many", "other", "other"]),
        ("he", ["other", "one", "two", "other", "other", "other", "other", "other", "other", "other", "other"]),
        ("ja", ["other", "other", "other", "other", "other", "other", "other", "other", "other", "other", "other"]),
        ("pt-PT", ["other", "one", "other", "other", "other", "other", "other", "other", "other", "other", "other"]),
        ("pt-BR", ["one", "one", "other", "other", "other", "other", "other", "other", "other", "other", "one"]),
    ])
    func theFormsOfCommonCounts(language: String, expected: [String]) throws {
        let tag = try #require(LanguageTag(language))
        let numbers = ["0", "1", "2", "3", "5", "11", "21", "22", "25", "101", "1.5"]
        let chosen = try numbers.map { PluralRules.category(for: tag, try #require(PluralOperands($0))).rawValue }
        #expect(chosen == expected, "\(language)")
    }

    @Test func operandsFollowTheWrittenNumber() throws {
        let plain = try #require(PluralOperands("1.50"))
        #expect(plain == PluralOperands(n: 1.5, i: 1, v: 2, w: 1, f: 50, t: 5, e: 0))
        let compact = try #require(PluralOperands("1.2c6"))
        #expect(compact == PluralOperands(n: 1_200_000, i: 1_200_000, v: 0, w: 0, f: 0, t: 0, e: 6))
        #expect(PluralOperands("-3") == PluralOperands(3))
        #expect(PluralOperands(-7) == PluralOperands(7))
        for bad in ["", ".5", "1.", "1,5", "abc", "1e99", "1234567890123456789", "--1"] {
            #expect(PluralOperands(bad) == nil, "\(bad)")
        }
    }

    @Test func unknownLanguagesAndRegionsFallBack() throws {
        #expect(PluralRules.category(for: try #require(LanguageTag("pt-AO")), PluralOperands(0)) == .one)
        #expect(PluralRules.category(for: try #require(LanguageTag("tlh")), PluralOperands(1)) == .other)
        #expect(PluralRules.categories(for: try #require(LanguageTag("ar"))) == [.zero, .one, .two, .few, .many, .other])
    }

    /// CLDR's example lists: values, `a~b` ranges (of integers, or of decimals stepping in their
    /// last written digit), compact `1c6`, and `…` (more of the same, skipped).
    static func expand(_ text: String) -> [String] {
        var values = [String]()
        for part in text.replacingOccurrences(of: "@integer", with: ",").replacingOccurrences(of: "@decimal", with: ",")
            .split(separator: ",")
        {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty, item != "…" else { continue }
            let bounds = item.split(separator: "~")
            guard bounds.count == 2 else {
                values.append(item)
                continue
            }
            let digits = bounds[0].split(separator: ".").dropFirst().first?.count ?? 0
            let scale = (0..<digits).reduce(1) { value, _ in value * 10 }
            let low = Int(bounds[0].replacingOccurrences(of: ".", with: ""))!
            let high = Int(bounds[1].replacingOccurrences(of: ".", with: ""))!
            for scaled in low...high {
                values.append(digits == 0 ? String(scaled) : "\(scaled / scale).\(String(scaled % scale).leftPadded(digits))")
            }
        }
        return values
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
