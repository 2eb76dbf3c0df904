import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

/// Numbers, currencies, percentages and dates shown the way each language writes them, and
/// arguments isolated in right-to-left text. The expected texts are what Foundation's
/// formatters give with ICU's CLDR data on Linux; docs/templates.md lists where Apple
/// platforms differ.
@Suite struct FormattedArgumentTests {
    /// A one-part template whose body is `format` in `language`, with one argument.
    private func render(
        _ format: String, _ argument: String, language: String, value: PayloadValue, timeZone: String? = nil
    )
        throws -> String?
    {
        let document = TemplateDocument(
            name: "value", defaultLanguage: language, body: MessagePart(key: "VALUE", arguments: [argument]),
            strings: [language: ["VALUE": format]])
        #expect(document.validate().isEmpty, "\(document.validate())")
        let template = try CompiledTemplate(document)
        var recipient = Fixtures.recipient([language], attributes: ["value": value])
        recipient.timeZone = timeZone
        let options = RenderOptions(mode: .server)
        var renderer = TemplateRenderer(template: template, options: options)
        let outcome = renderer.render(for: recipient)
        #expect(outcome == template.render(for: recipient, options: options))
        guard case .fields(let alert)? = outcome.notification?.payload.aps.alert else { return nil }
        return alert.body
    }

    /// The text without the isolates a right-to-left language puts around arguments.
    private func plain(_ text: String?) -> String? {
        text.map { String($0.unicodeScalars.filter { $0 != "\u{2068}" && $0 != "\u{2069}" }.map(Character.init)) }
    }

    @Test(arguments: [
        ("de", "1.234.567"), ("fr", "1\u{202F}234\u{202F}567"), ("ar", "1,234,567"), ("ja", "1,234,567"), ("hi", "12,34,567"),
        ("en", "1,234,567"), ("ru", "1\u{A0}234\u{A0}567"),
    ])
    func integersUseTheLanguagesGrouping(language: String, expected: String) throws {
        #expect(plain(try render("%lld", "attributes.value", language: language, value: 1_234_567)) == expected)
    }

    @Test(arguments: [
        ("de", "1.234,50"), ("fr", "1\u{202F}234,50"), ("ar", "1,234.50"), ("ja", "1,234.50"), ("hi", "1,234.50"),
    ])
    func decimalsUseTheLanguagesSeparatorsAndPrecision(language: String, expected: String) throws {
        #expect(plain(try render("%.2f", "attributes.value", language: language, value: 1234.5)) == expected)
    }

    @Test func aDecimalWithoutPrecisionHasSixDigitsAsInC() throws {
        #expect(try render("%f", "attributes.value", language: "de", value: 2.5) == "2,500000")
    }

    @Test(arguments: [
        ("de", "1.234,50\u{A0}€"), ("fr", "1\u{202F}234,50\u{A0}€"), ("ja", "€1,234.50"), ("hi", "€1,234.50"), ("en", "€1,234.50"),
    ])
    func currenciesPlaceTheSymbolAsTheLanguageDoes(language: String, expected: String) throws {
        #expect(try render("%@", "attributes.value | currency(EUR)", language: language, value: 1234.5) == expected)
    }

    @Test func arabicCurrencyAndPercentKeepTheirMarks() throws {
        let currency = try #require(plain(try render("%@", "attributes.value | currency(EUR)", language: "ar", value: 1234.5)))
        #expect(currency.contains("1,234.50") && currency.contains("€"))
        let date = try render("%@", "attributes.value | date(medium)", language: "ar", value: "2026-12-01T16:00:00Z")
        #expect(plain(date) == "1 ديسمبر، 2026")
        #expect(try render("%@", "attributes.value | number", language: "de", value: "0x10") == nil, "hex is not a number")
        #expect(try render("%@", "attributes.value | percent", language: "fr", value: 0.25) == "25\u{A0}%")
        #expect(try render("%@", "attributes.value | percent", language: "de", value: 0.125) == "12,5\u{A0}%")
        #expect(try render("%@", "attributes.value | number(1)", language: "de", value: 1234.56) == "1.234,6")
        #expect(try render("%@", "attributes.value | number", language: "en", value: 1234.5678) == "1,234.568")
    }

    @Test(arguments: [
        ("de", "1. Dez. 2026"), ("fr", "1 déc. 2026"), ("ja", "2026年12月1日"), ("hi", "1 दिस॰ 2026"), ("en", "Dec 1, 2026"),
    ])
    func datesUseTheLanguagesMediumStyle(language: String, expected: String) throws {
        let text = try render("%@", "attributes.value | date(medium)", language: language, value: "2026-12-01T16:00:00Z")
        #expect(text == expected)
    }

    @Test func timesAreInTheDevicesTimeZone() throws {
        let moment: PayloadValue = "2026-12-01T16:00:00Z"
        #expect(try render("%@", "attributes.value | time(short)", language: "de", value: moment, timeZone: "Europe/Berlin") == "17:00")
        #expect(try render("%@", "attributes.value | time(short)", language: "ja", value: moment, timeZone: "Asia/Tokyo") == "1:00")
        #expect(try render("%@", "attributes.value | time(short)", language: "de", value: moment) == "16:00")
        let dateTime = try render("%@", "attributes.value | datetime(short)", language: "fr", value: 1_796_140_800, timeZone: "Europe/Paris")
        #expect(dateTime == "01/12/2026 17:00")
    }

    /// The table of formats in docs/templates.md, row by row (de, fr, ja), device in Europe/Berlin.
    @Test(arguments: [
        ("| number", PayloadValue.double(1234.5678), ["1.234,568", "1\u{202F}234,568", "1,234.568"]),
        ("| number(1)", .double(1234.56), ["1.234,6", "1\u{202F}234,6", "1,234.6"]),
        ("| percent", .double(0.125), ["12,5\u{A0}%", "12,5\u{A0}%", "12.5%"]),
        ("| currency(EUR)", .double(1234.5), ["1.234,50\u{A0}€", "1\u{202F}234,50\u{A0}€", "€1,234.50"]),
        ("| date(medium)", .string("2026-12-01T16:00:00Z"), ["1. Dez. 2026", "1 déc. 2026", "2026年12月1日"]),
        ("| time(short)", .string("2026-12-01T16:00:00Z"), ["17:00", "17:00", "17:00"]),
        ("| datetime(short)", .string("2026-12-01T16:00:00Z"), ["1.12.2026, 17:00", "01/12/2026 17:00", "2026/12/1 17:00"]),
    ])
    func theFormatsTableOfTheDocsHolds(format: String, value: PayloadValue, expected: [String]) throws {
        for (language, text) in zip(["de", "fr", "ja"], expected) {
            let shown = try render("%@", "attributes.value \(format)", language: language, value: value, timeZone: "Europe/Berlin")
            #expect(shown == text, "\(format) in \(language)")
        }
    }

    @Test func aValueThatCannotBeFormattedFallsBackOrSkips() throws {
        let document = TemplateDocument(
            name: "value", defaultLanguage: "en",
            body: MessagePart(key: "VALUE", arguments: ["attributes.price ?? vars.price | currency(USD)"]),
            strings: ["en": ["VALUE": "Now %@"]])
        #expect(document.validate().isEmpty)
        let template = try CompiledTemplate(document)
        let options = RenderOptions(mode: .server, variables: ["price": 9.99])
        let fallback = template.render(for: Fixtures.recipient(["en"], attributes: ["price": "cheap"]), options: options)
        #expect(fallback.notification?.payload.aps.alert == .fields(Payload.Alert(body: "Now $9.99")))
        let skipped = template.render(for: Fixtures.recipient(["en"], attributes: ["price": "cheap"]), options: RenderOptions(mode: .server))
        #expect(skipped == .skipped(.missingArgument("attributes.price ?? vars.price | currency(USD)")))
    }

    @Test func anArabicStringIsolatesALatinArgumentAndCountsTheIsolatesInThePayload() throws {
        let document = TemplateDocument(
            name: "order", defaultLanguage: "ar",
            body: MessagePart(key: "SHIPPED", arguments: ["attributes.product", "attributes.order"]),
            strings: ["ar": ["SHIPPED": "تم شحن %1$@ (الطلب %2$@)."], "en": ["SHIPPED": "%1$@ shipped (order %2$@)."]])
        let template = try CompiledTemplate(document)
        let attributes: [String: PayloadValue] = ["product": "iPhone 17 Pro", "order": "A-1042"]
        let arabic = template.render(for: Fixtures.recipient(["ar"], attributes: attributes), options: RenderOptions(mode: .server))
        let expected = "تم شحن \u{2068}iPhone 17 Pro\u{2069} (الطلب \u{2068}A-1042\u{2069})."
        #expect(arabic.notification?.payload.aps.alert == .fields(Payload.Alert(body: expected)))
        let english = template.render(for: Fixtures.recipient(["en"], attributes: attributes), options: RenderOptions(mode: .server))
        #expect(english.notification?.payload.aps.alert == .fields(Payload.Alert(body: "iPhone 17 Pro shipped (order A-1042).")))
        // The four isolates go to APNs as 3 UTF-8 bytes each, within the payload's size.
        let encoded = try #require(arabic.notification?.encoded)
        func occurrences(_ needle: [UInt8]) -> Int {
            (0...(encoded.count - needle.count)).filter { Array(encoded[$0..<$0 + needle.count]) == needle }.count
        }
        #expect(occurrences([0xE2, 0x81, 0xA8]) == 2 && occurrences([0xE2, 0x81, 0xA9]) == 2)
    }

    @Test func typeMismatchesAreRefusedByField() {
        let document = TemplateDocument(
            name: "value", defaultLanguage: "en",
            title: MessagePart(key: "TITLE", arguments: ["vars.total | currency(EUR)"]),
            body: MessagePart(key: "BODY", arguments: ["attributes.count ?? \"several\"", "vars.when | date(short) ?? \"soon\""]),
            strings: ["en": ["TITLE": "Total %d", "BODY": "%1$#@items@ by %2$@"]],
            plurals: ["en": ["BODY": ["items": ["one": "%d item", "other": "%d items"]]]])
        let problems = document.validate().map(\.description)
        #expect(
            problems.contains { $0.contains("title.arguments[0] is formatted as text by | currency(EUR), but strings.en.TITLE shows it as a number") }
        )
        #expect(problems.contains { $0.contains("body.arguments[0] may be the literal \"several\", but strings.en.BODY shows it as a number") })
        #expect(problems.contains { $0.contains("body.arguments[1]") })
    }

    @Test(arguments: [
        ("vars.x | currency(eur)", "ISO 4217"), ("vars.x | date(tiny)", "date(…) takes one of short, medium, long, full"),
        ("vars.x | time(long)", "time(…) takes one of short, medium"), ("vars.x | upper", "unknown format \"upper\""),
        ("vars.x | number(9)", "0 to 6"), ("vars.x |", "expected a format after '|'"), ("vars.x | date(short) ?? vars.y", "ends the expression"),
    ])
    func badFormatsAreExplained(source: String, message: String) {
        #expect(throws: ArgumentExpressionError.self) { try ArgumentExpression(parsing: source) }
        do {
            _ = try ArgumentExpression(parsing: source)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
