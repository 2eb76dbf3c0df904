import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

/// Small integers written from a language's digit table read exactly as its formatter writes them.
@Suite struct SmallIntegersTests {
    static let languages = [
        "en", "de", "fr", "ja", "zh-Hant-HK", "ar", "ar-SA", "fa", "ur", "he", "hi", "bn", "mr", "ne", "my", "th", "sv",
        "fi", "nb", "ru", "es-MX", "pt-BR",
    ]

    @Test(arguments: languages)
    func everyIntegerUnderAThousandReadsAsTheFormatterWritesIt(language: String) throws {
        let tag = try #require(LanguageTag(language))
        let formatting = TextFormatting(language: tag)
        let style = IntegerFormatStyle<Int>(locale: Locale(identifier: language))
        for number in -1_200...1_200 {
            #expect(formatting.convert(String(number), .integer) == style.format(number), "\(number) in \(language)")
        }
    }

    /// The table is made where small numbers are digits after a sign: ASCII digits, Arabic-Indic
    /// (ar-SA), Extended Arabic-Indic with a direction mark and U+2212 (fa), U+2212 alone (sv).
    @Test(arguments: ["en", "de", "ja", "ar", "ar-SA", "fa", "he", "sv", "fi", "nb"])
    func theLanguagesOfMostAudiencesHaveATable(language: String) throws {
        let formatting = TextFormatting(language: try #require(LanguageTag(language)))
        #expect(formatting.smallIntegers != nil)
        #expect(formatting.smallIntegers?.format(1_000) == nil)
        #expect(formatting.smallIntegers?.format(-1_000) == nil)
    }
}
