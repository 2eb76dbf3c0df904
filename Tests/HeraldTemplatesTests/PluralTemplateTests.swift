import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

/// Plural strings in templates: the form a device's language picks for a count, in server mode
/// the same as the app's own `.stringsdict` would, and the same through the campaign renderer.
@Suite struct PluralTemplateTests {
    /// The shipped cart-reminder's body for one language and count, server mode.
    private func cartBody(_ language: String, _ count: PayloadValue) throws -> String? {
        let document = try TemplateLoader.loadTemplate(folder: Fixtures.templatesDirectory.appendingPathComponent("cart-reminder"))
        let template = try CompiledTemplate(document)
        let recipient = Fixtures.recipient([language], attributes: ["firstName": "Ana", "cartItemCount": count])
        let outcome = template.render(for: recipient, options: RenderOptions(mode: .server, variables: ["storeName": "Acme"]))
        guard case .fields(let alert)? = outcome.notification?.payload.aps.alert else { return nil }
        return alert.body
    }

    @Test(arguments: [
        ("ru", 1, "У вас 1 товар в корзине"), ("ru", 2, "У вас 2 товара в корзине"), ("ru", 5, "У вас 5 товаров в корзине"),
        ("ru", 21, "У вас 21 товар в корзине"), ("ru", 22, "У вас 22 товара в корзине"), ("ru", 25, "У вас 25 товаров в корзине"),
        ("ru", 111, "У вас 111 товаров в корзине"),
        ("pl", 1, "Masz 1 produkt w koszyku"), ("pl", 2, "Masz 2 produkty w koszyku"), ("pl", 5, "Masz 5 produktów w koszyku"),
        ("pl", 22, "Masz 22 produkty w koszyku"), ("pl", 25, "Masz 25 produktów w koszyku"),
        ("en", 1, "You left 1 item in"), ("en", 2, "You left 2 items in"),
        ("fr", 0, "Vous avez 0 article dans"), ("fr", 1, "Vous avez 1 article dans"), ("fr", 2, "Vous avez 2 articles dans"),
        ("pt-PT", 0, "Tem 0 artigos no"), ("pt-BR", 0, "Você tem 0 item no"),
        ("ja", 1, "のカートに1点の商品が"),
        ("de", 1234, "Du hast 1.234 Artikel in"),
    ])
    func theCartReminderPicksEachLanguagesFormForTheCount(language: String, count: Int, expected: String) throws {
        let body = try #require(try cartBody(language, .int(count)))
        #expect(body.contains(expected), "\(language) \(count): \(body)")
    }

    @Test func arabicUsesAllSixFormsAndIsolatesItsArguments() throws {
        let isolate = { (text: String) in "\u{2068}\(text)\u{2069}" }
        #expect(try cartBody("ar", 0)?.hasPrefix("لديك \(isolate("0")) منتج في") == true)
        #expect(try cartBody("ar", 1)?.hasPrefix("لديك منتج واحد في") == true)
        #expect(try cartBody("ar", 2)?.hasPrefix("لديك منتجان في") == true)
        #expect(try cartBody("ar", 3)?.hasPrefix("لديك \(isolate("3")) منتجات في") == true)
        #expect(try cartBody("ar", 11)?.hasPrefix("لديك \(isolate("11")) منتجًا في") == true)
        #expect(try cartBody("ar", 100)?.hasPrefix("لديك \(isolate("100")) منتج في") == true)
        // The Latin store name keeps its place in the right-to-left sentence.
        #expect(try cartBody("ar", 3)?.contains("لدى \(isolate("Acme")).") == true)
    }

    @Test func aCountThatIsNotANumberTakesTheOtherForm() throws {
        #expect(try cartBody("ru", "много")?.hasPrefix("У вас много товара") == true)
        #expect(try cartBody("ru", 1.5)?.hasPrefix("У вас 1.5 товара") == true)
    }

    @Test func anExplicitZeroFormIsUsedForZeroInEveryLanguageAsOnApplePlatforms() throws {
        let document = TemplateDocument(
            name: "inbox", defaultLanguage: "en", body: MessagePart(key: "INBOX", arguments: ["attributes.unread"]),
            strings: ["en": ["INBOX": "%#@messages@"], "ja": ["INBOX": "%#@messages@"]],
            plurals: [
                "en": ["INBOX": ["messages": ["zero": "No new messages", "one": "%d new message", "other": "%d new messages"]]],
                "ja": ["INBOX": ["messages": ["zero": "新着メッセージなし", "other": "新着メッセージ%d件"]]],
            ])
        #expect(document.validate().isEmpty)
        let template = try CompiledTemplate(document)
        func body(_ language: String, _ unread: Int) -> String? {
            let recipient = Fixtures.recipient([language], attributes: ["unread": .int(unread)])
            guard case .fields(let alert)? = template.render(for: recipient, options: RenderOptions(mode: .server)).notification?.payload.aps.alert
            else { return nil }
            return alert.body
        }
        #expect(body("en", 0) == "No new messages")
        #expect(body("en", 1) == "1 new message")
        #expect(body("en", 12345) == "12,345 new messages")
        #expect(body("ja", 0) == "新着メッセージなし")
        #expect(body("ja", 1) == "新着メッセージ1件")
    }

    @Test func clientModeKeepsTheCatalogKeyAndSendsTheCountAsItIs() throws {
        let document = try TemplateLoader.loadTemplate(folder: Fixtures.templatesDirectory.appendingPathComponent("cart-reminder"))
        let template = try CompiledTemplate(document)
        let recipient = Fixtures.recipient(["ru"], attributes: ["firstName": "Ana", "cartItemCount": 1234])
        let outcome = template.render(for: recipient, options: RenderOptions(mode: .client, variables: ["storeName": "Acme"]))
        guard case .fields(let alert)? = outcome.notification?.payload.aps.alert else {
            Issue.record("no alert: \(outcome)")
            return
        }
        #expect(alert.locKey == "CART_REMINDER_BODY")
        #expect(alert.locArgs == ["1234", "Acme"])
        #expect(alert.body == nil)
    }

    @Test func theCampaignRendererPicksTheSameFormsAsTheFullRenderer() throws {
        let document = try TemplateLoader.loadTemplate(folder: Fixtures.templatesDirectory.appendingPathComponent("cart-reminder"))
        let template = try CompiledTemplate(document)
        for mode in LocalizationMode.allCases {
            let options = RenderOptions(mode: mode, variables: ["storeName": "Acme"])
            var renderer = TemplateRenderer(template: template, options: options)
            for round in 0..<2 {
                for language in ["ru", "pl", "ar", "fr", "en", "ja", "pt-PT"] {
                    for count in [0, 1, 2, 3, 5, 11, 21, 22, 25, 101, 1_000_000] {
                        let recipient = Fixtures.recipient(
                            [language], attributes: ["firstName": "Ana", "cartItemCount": .int(count)])
                        #expect(
                            renderer.render(for: recipient) == template.render(for: recipient, options: options),
                            "\(mode) \(language) \(count) round \(round)")
                    }
                }
            }
        }
    }

    @Test func twoCountsInOneStringEachPickTheirForm() throws {
        let document = TemplateDocument(
            name: "landing", defaultLanguage: "en",
            body: MessagePart(key: "LANDED", arguments: ["attributes.geese", "attributes.fields"]),
            strings: ["en": ["LANDED": "%1$#@geese@ landed on %2$#@fields@"], "ru": ["LANDED": "%1$#@geese@ сели на %2$#@fields@"]],
            plurals: [
                "en": ["LANDED": ["geese": ["one": "%d goose", "other": "%d geese"], "fields": ["one": "%d field", "other": "%d fields"]]],
                "ru": [
                    "LANDED": [
                        "geese": ["one": "%d гусь", "few": "%d гуся", "many": "%d гусей", "other": "%d гуся"],
                        "fields": ["one": "%d поле", "few": "%d поля", "many": "%d полей", "other": "%d поля"],
                    ]
                ],
            ])
        #expect(document.validate().isEmpty)
        let template = try CompiledTemplate(document)
        var renderer = TemplateRenderer(template: template, options: RenderOptions(mode: .server))
        for (language, geese, fields, expected) in [
            ("en", 1, 3, "1 goose landed on 3 fields"), ("en", 2, 1, "2 geese landed on 1 field"),
            ("ru", 21, 2, "21 гусь сели на 2 поля"), ("ru", 5, 1, "5 гусей сели на 1 поле"),
        ] {
            let recipient = Fixtures.recipient([language], attributes: ["geese": .int(geese), "fields": .int(fields)])
            let outcome = renderer.render(for: recipient)
            #expect(outcome == template.render(for: recipient, options: RenderOptions(mode: .server)))
            #expect(outcome.notification?.payload.aps.alert == .fields(Payload.Alert(body: expected)))
        }
    }
}
