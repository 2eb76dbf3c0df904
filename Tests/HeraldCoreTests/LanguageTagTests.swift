import HeraldCore
import Testing

@Suite struct LanguageTagTests {
    @Test(arguments: [
        ("en", "en"), ("EN", "en"), ("pt-br", "pt-BR"), ("pt_BR", "pt-BR"), ("zh-hant-hk", "zh-Hant-HK"),
        ("zh_Hans", "zh-Hans"), ("es-419", "es-419"), ("sr-latn-rs", "sr-Latn-RS"), ("de-CH-1996", "de-CH-1996"),
        ("en-US-x-twain", "en-US-x-twain"), ("zh-yue-HK", "zh-yue-HK"), ("en-US-u-ca-gregory", "en-US-u-ca-gregory"),
        ("fil", "fil"), ("ar-EG", "ar-EG"), ("ZH-HANT", "zh-Hant"), ("EN-us-U-CA-Gregory", "en-US-u-ca-gregory"),
        ("de-1901", "de-1901"), ("sl-rozaj-BISKE", "sl-rozaj-biske"), ("en-a-bbb-x-CCC", "en-a-bbb-x-ccc"),
        ("x-whatever", nil), ("zh-cmn-Hans-CN", "zh-cmn-Hans-CN"), ("en-x-a", "en-x-a"),
        (String(repeating: "a", count: 8) + String(repeating: "-abcdefgh", count: 6) + "-abcdef", nil),
    ])
    func normalizesCase(input: String, expected: String?) {
        #expect(LanguageTag(input)?.value == expected)
    }

    /// The longest tag kept is 64 bytes; one byte more is refused.
    @Test func keepsSixtyFourBytes() {
        let longest = "en-" + Array(repeating: "abcdefgh", count: 6).joined(separator: "-") + "-abcdefg"
        #expect(longest.utf8.count == 64)
        #expect(LanguageTag(longest)?.value == longest)
        #expect(LanguageTag(longest + "h") == nil)
    }

    @Test(arguments: [
        "", "e", "englishlanguage", "en-", "-en", "en--US", "en-US-", "1en", "en-x", "en-a", "ja-Jpan-JP-x",
        "en US", "日本語", "abcd", "en-Hant-Hant", "en-US-GB", "en-x-a.b", "en-u-ca-gregory1x", "en-u-c.a",
        "en-x-toolongsubtag", "en-US\u{0}",
    ])
    func refusesNonTags(input: String) {
        #expect(LanguageTag(input) == nil)
    }

    @Test func primaryLanguage() throws {
        #expect(try #require(LanguageTag("zh-Hant-HK")).language == "zh")
    }
}
