import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct TemplateLoaderTests {
    static let sampleLanguages = ["ar", "de", "en", "en-GB", "es", "es-419", "fr", "ja", "pl", "pt-BR", "pt-PT", "ru", "zh-Hans", "zh-Hant"]

    /// The shipped templates with text (background-refresh has none).
    static func textTemplates() throws -> [TemplateDocument] {
        try TemplateLoader.load(directory: Fixtures.templatesDirectory).filter { $0.payload.pushType != "background" }
    }

    @Test func loadsTheShippedTemplates() throws {
        let all = try TemplateLoader.load(directory: Fixtures.templatesDirectory)
        #expect(all.map(\.name) == ["background-refresh", "cart-reminder", "flash-sale", "order-on-its-way", "welcome"])
        let documents = try Self.textTemplates()
        for document in documents {
            #expect(document.strings.keys.sorted() == Self.sampleLanguages, "\(document.name)")
            #expect(document.validate().isEmpty, "\(document.name)")
            let template = try CompiledTemplate(document)
            #expect(template.languages.map(\.value) == Self.sampleLanguages)
        }
    }

    @Test func rendersEveryShippedTemplateInEveryLanguage() throws {
        let documents = try Self.textTemplates()
        let recipientAttributes: [String: PayloadValue] = ["firstName": "Ana", "cartItemCount": 3]
        let variables: [String: PayloadValue] = ["percentOff": 30, "endTime": "23:59", "storeName": "Acme"]
        for document in documents {
            let template = try CompiledTemplate(document)
            for language in Self.sampleLanguages {
                let recipient = Fixtures.recipient([language], attributes: recipientAttributes)
                for mode in LocalizationMode.allCases {
                    let outcome = template.render(for: recipient, options: RenderOptions(mode: mode, variables: variables))
                    let notification = try #require(outcome.notification, "\(document.name) \(language) \(mode): \(outcome)")
                    #expect(notification.language.value == language)
                    #expect(notification.encoded.count <= 4096)
                }
            }
        }
    }

    @Test func flashSaleReordersArgumentsAndKeepsPercentSigns() throws {
        let documents = try TemplateLoader.load(directory: Fixtures.templatesDirectory)
        let document = try #require(documents.first { $0.name == "flash-sale" })
        let template = try CompiledTemplate(document)
        let options = RenderOptions(variables: ["percentOff": 30, "endTime": "23:59"])
        func alert(_ language: String) throws -> Payload.Alert {
            let notification = try #require(template.render(for: Fixtures.recipient([language]), options: options).notification)
            guard case .fields(let alert)? = notification.payload.aps.alert else { throw LoaderTestError.noAlert }
            return alert
        }
        #expect(try alert("en").body == "Take 30% off everything until 23:59. Don't miss out!")
        #expect(try alert("en").title == "Flash sale: 30% off")
        #expect(try alert("en").subtitle == "Only at Herald Shop")
        #expect(try alert("de").body == "Nur bis 23:59: 30\u{A0}% Rabatt auf alles. Nicht verpassen!")
        #expect(try alert("ja").body == "23:59まで全品30%オフ。お見逃しなく！")
        #expect(try alert("zh-TW").body == "23:59 前全館立減 30%，千萬別錯過！")
    }

    @Test func cartReminderReadsItsStringCatalog() throws {
        let documents = try TemplateLoader.load(directory: Fixtures.templatesDirectory)
        let document = try #require(documents.first { $0.name == "cart-reminder" })
        #expect(document.strings["pt-BR"]?["CART_REMINDER_TITLE"] == "Ainda pensando, %@?")
        #expect(document.strings["es-419"]?["CART_REMINDER_BODY"]?.contains("carrito") == true)
    }

    @Test func reportsEveryProblemOfAFolderWithFilesAndLines() throws {
        let directory = try Fixtures.directory([
            "bad/template.json": #"{"name": "bad", "defaultLanguage": "en", "colour": 1, "body": {"key": "BODY", "arguments": ["vars.x"]}}"#,
            "bad/en.strings": "\"BODY\" = \"Hello %@\";\n",
            "bad/de.strings": "/* German */\n\"BODY\" = \"Hallo %@\"\n\"OTHER\" = \"x\";\n",
            "bad/english.strings": "\"BODY\" = \"Hello %@\";\n",
            "bad/fr.strings": "/* French */\n\n\"BODY\" = \"Bonjour %1$@ et %2$@\";\n",
            "bad/ja.strings": "\"OTHER\" = \"x\";\n",
            "good/template.json": #"{"name": "good", "defaultLanguage": "en", "body": {"key": "BODY"}}"#,
            "good/en.strings": "\"BODY\" = \"Hello\";\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(loadError(directory))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "bad/template.json: unknown key colour (expected one of body, clientFallback, defaultLanguage, description, name, payload, plurals, strings, subtitle, title)",
                "bad/de.strings:2: expected ';' after value",
                "bad/english.strings: \"english\" is not a language tag: name strings files like en.strings, pt-BR.strings or zh-Hans.lproj",
                "bad/fr.strings:3: BODY uses argument 2 but the body has only 1 argument",
                "bad/fr.strings:3: BODY uses 2 argument slot(s) in fr but 1 in the default language en",
                "bad/ja.strings: ja has no string for BODY (the body)",
            ]
        )
    }

    @Test func readsLprojFoldersAndCatalogs() throws {
        let catalog = #"""
            {"sourceLanguage": "en", "version": "1.0", "strings": {
              "BODY": {"localizations": {
                "en": {"stringUnit": {"state": "translated", "value": "Hello %@"}},
                "ja": {"stringUnit": {"state": "translated", "value": "%@さん、こんにちは"}},
                "zh-Hant": {"stringUnit": {"state": "translated", "value": "%@，你好"}}}}}}
            """#
        let directory = try Fixtures.directory([
            "hello/template.json": #"{"name": "hello", "defaultLanguage": "en", "body": {"key": "BODY", "arguments": ["attributes.firstName"]}}"#,
            "hello/pt_BR.lproj/Localizable.strings": "\"BODY\" = \"Olá %@\";\n",
            "hello/Base.lproj/Main.storyboard": "<xml/>",
            "hello/Localizable.xcstrings": catalog,
            "hello/README.md": "notes",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let documents = try TemplateLoader.load(directory: directory)
        let document = try #require(documents.first)
        #expect(document.strings.keys.sorted() == ["en", "ja", "pt-BR", "zh-Hant"])
        #expect(document.strings["pt-BR"] == ["BODY": "Olá %@"])
        #expect(document.strings["en"] == ["BODY": "Hello %@"])
    }

    @Test func reportsLanguagesDefinedTwiceAndMissingFiles() throws {
        let directory = try Fixtures.directory([
            "twice/template.json": #"{"name": "twice", "defaultLanguage": "en", "body": {"key": "BODY"}}"#,
            "twice/en.strings": "\"BODY\" = \"Hello\";\n",
            "twice/en.lproj/Localizable.strings": "\"BODY\" = \"Hi\";\n",
            "twice/de.lproj/InfoPlist.strings": "\"CFBundleName\" = \"App\";\n",
            "nojson/en.strings": "\"BODY\" = \"Hello\";\n",
            "renamed/template.json": #"{"name": "other", "defaultLanguage": "en", "body": {"key": "BODY"}, "strings": {}}"#,
            "renamed/en.strings": "\"BODY\" = \"Hello\";\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(loadError(directory))
        #expect(
            error.problems.map(\.description) == [
                "nojson/template.json: missing template.json",
                "renamed/template.json: strings belong in <language>.strings or .stringsdict files or a .xcstrings catalog beside template.json",
                "renamed/template.json: name \"other\" does not match the folder name \"renamed\"",
                "twice/de.lproj/Localizable.strings: missing or unreadable strings file",
                "twice/en.strings: strings for en are already in twice/en.lproj/Localizable.strings",
            ]
        )
    }

    @Test func reportsMalformedTemplateJSON() throws {
        let directory = try Fixtures.directory([
            "broken/template.json": "{\n  \"name\": \"broken\",\n  \"defaultLanguage\": \"en\",,\n}",
            "broken/en.strings": "\"BODY\" = \"Hello\";\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(loadError(directory))
        let problem = try #require(error.problems.first)
        #expect(error.problems.count == 1)
        #expect(problem.file == "broken/template.json")
        #expect(problem.message.hasPrefix("not valid JSON"))
    }

    @Test func refusesADirectoryWithoutTemplates() throws {
        let directory = try Fixtures.directory(["README.md": "nothing here"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(loadError(directory))
        #expect(error.problems.map(\.message) == ["no template folders (each template is a folder with a template.json)"])
    }

    private func loadError(_ directory: URL) -> TemplateLoadError? {
        do throws(TemplateLoadError) {
            _ = try TemplateLoader.load(directory: directory)
            return nil
        } catch {
            return error
        }
    }
}

private enum LoaderTestError: Error {
    case noAlert
}
