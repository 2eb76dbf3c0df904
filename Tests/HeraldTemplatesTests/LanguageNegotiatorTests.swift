import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct LanguageNegotiatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var preferred: [String]
        var available: [String]
        var defaultLanguage: String
        var expected: String

        var testDescription: String {
            "\(preferred) from \(available.count == 12 ? "the sample languages" : "\(available)") → \(expected)"
        }
    }

    /// The languages of the sample templates.
    static let sample = ["ar", "de", "en", "en-GB", "es", "es-419", "fr", "ja", "pt-BR", "pt-PT", "zh-Hans", "zh-Hant"]

    private static func inSample(_ preferred: [String], _ expected: String) -> Case {
        Case(preferred: preferred, available: sample, defaultLanguage: "en", expected: expected)
    }

    private static func only(
        _ preferred: [String], _ available: [String], _ expected: String, default defaultLanguage: String = "en"
    )
        -> Case
    {
        Case(preferred: preferred, available: available, defaultLanguage: defaultLanguage, expected: expected)
    }

    static let cases: [Case] = [
        // Exact matches, case- and separator-insensitive.
        inSample(["en"], "en"),
        inSample(["en-GB"], "en-GB"),
        inSample(["en_gb"], "en-GB"),
        inSample(["ZH-hant"], "zh-Hant"),
        inSample(["es-419"], "es-419"),
        inSample(["pt-BR"], "pt-BR"),
        inSample(["pt-PT"], "pt-PT"),
        // English: Commonwealth regions fall back to en-GB, others to en.
        inSample(["en-US"], "en"),
        inSample(["en-AU"], "en-GB"),
        inSample(["en-NZ"], "en-GB"),
        inSample(["en-IN"], "en-GB"),
        inSample(["en-IE"], "en-GB"),
        inSample(["en-CA"], "en"),
        inSample(["en-Latn-US"], "en"),
        // Spanish: Latin America → es-419, Spain → es.
        inSample(["es-MX"], "es-419"),
        inSample(["es-AR"], "es-419"),
        inSample(["es-CO"], "es-419"),
        inSample(["es-US"], "es-419"),
        inSample(["es-ES"], "es"),
        inSample(["es"], "es"),
        // Portuguese: Africa and Asia → pt-PT; bare pt is Brazilian.
        inSample(["pt-AO"], "pt-PT"),
        inSample(["pt-MZ"], "pt-PT"),
        inSample(["pt"], "pt-BR"),
        // Chinese: the script is inferred from the region.
        inSample(["zh-TW"], "zh-Hant"),
        inSample(["zh-HK"], "zh-Hant"),
        inSample(["zh-MO"], "zh-Hant"),
        inSample(["zh_TW"], "zh-Hant"),
        inSample(["zh-CN"], "zh-Hans"),
        inSample(["zh-SG"], "zh-Hans"),
        inSample(["zh"], "zh-Hans"),
        inSample(["zh-Hant-TW"], "zh-Hant"),
        inSample(["zh-Hans-HK"], "zh-Hans"),
        // Region dropped.
        inSample(["ja-JP"], "ja"),
        inSample(["ar-SA"], "ar"),
        inSample(["ar-EG"], "ar"),
        inSample(["de-AT"], "de"),
        inSample(["de-CH"], "de"),
        inSample(["fr-CA"], "fr"),
        inSample(["fr-BE"], "fr"),
        // Preferred languages in order; the default only when none matches.
        inSample(["ko-KR", "ja"], "ja"),
        inSample(["ru", "de-DE", "fr"], "de"),
        inSample(["fr-CA", "de"], "fr"),
        inSample(["it"], "en"),
        inSample(["sv", "nb"], "en"),
        inSample([], "en"),
        // Same language, another region, rather than the default.
        only(["pt-PT"], ["en", "pt-BR"], "pt-BR"),
        only(["pt-BR"], ["en", "pt-PT"], "pt-PT"),
        only(["pt-BR"], ["en", "pt"], "pt"),
        only(["pt-PT"], ["en", "pt"], "pt"),
        only(["de"], ["en", "de-DE"], "de-DE"),
        only(["de-CH"], ["de-AT", "de-DE", "en"], "de-DE"),
        only(["en"], ["en-GB", "en-US"], "en-US", default: "en-GB"),
        only(["en-US"], ["en-AU", "en-GB"], "en-GB", default: "en-AU"),
        only(["en-AU"], ["en", "en-AU", "en-GB"], "en-AU"),
        only(["fr-CA"], ["en", "fr-CA", "fr-FR"], "fr-CA"),
        // Regional parents and siblings.
        only(["es-MX"], ["en", "es"], "es"),
        only(["es-MX"], ["en", "es", "es-419"], "es-419"),
        only(["es-MX"], ["en", "es-AR", "es-ES"], "es-AR"),
        only(["es-419"], ["en", "es-ES", "es-MX"], "es-MX"),
        only(["es-ES"], ["en", "es-419", "es-MX"], "es-419"),
        only(["zh-MO"], ["en", "zh-HK", "zh-TW"], "zh-HK"),
        only(["zh-TW"], ["en", "zh-HK"], "zh-HK"),
        only(["zh-HK"], ["en", "zh-Hans", "zh-Hant"], "zh-Hant"),
        // Scripts must agree.
        only(["zh-TW"], ["en", "zh-Hans"], "en"),
        only(["zh-CN"], ["en", "zh-Hant"], "en"),
        only(["sr-Latn"], ["en", "sr"], "en"),
        only(["sr"], ["en", "sr-Latn"], "en"),
        only(["sr-RS"], ["en", "sr"], "sr"),
        only(["sr-Latn-RS"], ["en", "sr", "sr-Latn"], "sr-Latn"),
        only(["sr-ME"], ["en", "sr", "sr-Latn"], "sr-Latn"),
        only(["uz-Cyrl"], ["en", "uz"], "en"),
        only(["pa-PK"], ["en", "pa"], "en"),
        only(["pa-Arab"], ["en", "pa-PK"], "pa-PK"),
        // Deprecated codes and extended language subtags.
        only(["iw"], ["en", "he"], "he"),
        only(["nb-NO"], ["en", "no"], "no"),
        only(["fil-PH"], ["en", "tl"], "tl"),
        only(["zh-yue-HK"], ["en", "yue"], "yue"),
        only(["yue-HK"], ["en", "yue", "zh-Hant"], "yue"),
        // CLDR's data beyond the common cases: world English, parents across languages, more aliases.
        only(["en-150"], ["en", "en-GB"], "en-GB"),
        only(["en-001"], ["en", "en-GB", "en-001"], "en-001"),
        only(["en-001"], ["en", "en-GB"], "en-GB"),
        only(["ht"], ["en", "fr"], "fr"),
        only(["hi-Latn"], ["hi", "en", "en-GB"], "en-GB"),
        only(["nn-NO"], ["en", "no"], "no"),
        only(["no"], ["en", "nb"], "en"),
        only(["arb"], ["en", "ar"], "ar"),
        only(["zh-Hant-MO"], ["en", "zh-HK", "zh-TW"], "zh-HK"),
        // A default language that is not among the available ones is still the answer.
        only(["it"], ["de", "fr"], "en"),
    ]

    @Test(arguments: cases)
    func choosesTheLanguageApplePlatformsWould(_ testCase: Case) {
        let chosen = LanguageNegotiator.choose(
            preferred: Fixtures.tags(testCase.preferred),
            available: Fixtures.tags(testCase.available),
            defaultLanguage: Fixtures.tag(testCase.defaultLanguage)
        )
        #expect(chosen.value == testCase.expected)
    }

    @Test func aParentLanguageIsSaidToBeOne() {
        let negotiator = LanguageNegotiator(available: Fixtures.tags(["en", "no", "nb-SJ"]), defaultLanguage: Fixtures.tag("en"))
        #expect(negotiator.choice(for: Fixtures.tags(["nn"])).reason == .parentLanguage)
        #expect(negotiator.choice(for: Fixtures.tags(["nb"])).reason == .otherRegion)
        #expect(negotiator.choice(for: Fixtures.tags(["no-NO"])).reason == .closeMatch)
    }

    @Test func theTablesAreCLDRsGeneratedOnes() {
        #expect(LanguageSubtags.cldrVersion == "47.0.0")
        #expect(LanguageSubtags.tables.aliases.count > 400 && LanguageSubtags.tables.likely.count > 7000)
        #expect(LanguageSubtags.likelyScript(language: "sr", region: "ME") == "Latn")
        #expect(LanguageSubtags.likelyRegion(language: "zh", script: "Hant") == "TW")
        #expect(LanguageSubtags.parentRegion(language: "zh", script: "Hant", region: "MO") == "HK")
        #expect(LanguageSubtags.parentRegion(language: "es", script: "Latn", region: "MX") == "419")
        #expect(LanguageSubtags.parentLanguageTag(language: "nb", script: "Latn") == "no")
    }

    @Test func coversAtLeastFortyFiveCases() {
        #expect(Self.cases.count >= 45)
    }

    @Test func saysWhyALanguageWasChosen() {
        let negotiator = LanguageNegotiator(available: Fixtures.tags(Self.sample), defaultLanguage: Fixtures.tag("en"))
        let exact = negotiator.choice(for: Fixtures.tags(["ko", "de"]))
        #expect(exact.reason == .exactMatch)
        #expect(exact.preferredIndex == 1)
        #expect(exact.index == Self.sample.firstIndex(of: "de"))
        #expect(negotiator.choice(for: Fixtures.tags(["es-MX"])).reason == .closeMatch)
        #expect(negotiator.choice(for: Fixtures.tags(["ko"])).reason == .defaultLanguage)
        #expect(negotiator.choice(for: Fixtures.tags(["ko"])).preferredIndex == nil)
        let other = LanguageNegotiator(available: Fixtures.tags(["en", "pt-BR"]), defaultLanguage: Fixtures.tag("en"))
        #expect(other.choice(for: Fixtures.tags(["pt-PT"])).reason == .otherRegion)
    }
}
