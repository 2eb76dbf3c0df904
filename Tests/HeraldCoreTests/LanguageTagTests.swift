import HeraldCore
import Testing

@Suite struct LanguageTagTests {
    @Test(arguments: [
        ("en", "en"), ("EN", "en"), ("pt-br", "pt-BR"), ("pt_BR", "pt-BR"), ("zh-hant-hk", "zh-Hant-HK"),
        ("zh_Hans", "zh-Hans"), ("es-419", "es-419"), ("sr-latn-rs", "sr-Latn-RS"), ("de-CH-1996", "de-CH-1996"),
        ("en-US-x-twain", "en-US-x-twain"), ("zh-yue-HK", "zh-yue-HK"), ("en-US-u-ca-gregory", "en-US-u-ca-gregory"),
        ("fil", "fil"), ("ar-EG", "ar-EG"),
    ])
    func normalizesCase(input: String, expected: String) throws {
        #expect(try #require(LanguageTag(input)).value == expected)
    }

    @Test(arguments: [
        "", "e", "englishlanguage", "en-", "-en", "en--US", "en-US-", "1en", "en-x", "en-a", "ja-Jpan-JP-x",
        "en US", "日本語", "abcd", "en-Hant-Hant", "en-US-GB",
    ])
    func refusesNonTags(input: String) {
        #expect(LanguageTag(input) == nil)
    }

    @Test func primaryLanguage() throws {
        #expect(try #require(LanguageTag("zh-Hant-HK")).language == "zh")
    }
}
