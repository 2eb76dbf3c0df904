import APNSCore
import Foundation
import Testing

@testable import HeraldTemplates

@Suite struct TemplateValidationTests {
    /// The problems of the greeting fixture after `change`.
    private func problems(_ change: (inout TemplateDocument) -> Void) -> [TemplateProblem] {
        var document = Fixtures.greeting()
        change(&document)
        return document.validate()
    }

    private func only(_ problems: [TemplateProblem]) throws -> TemplateProblem {
        #expect(problems.count == 1, "\(problems)")
        return try #require(problems.first)
    }

    @Test func acceptsAValidDocument() {
        #expect(Fixtures.greeting().validate().isEmpty)
    }

    @Test(arguments: ["welcome", "cart-reminder", "flash_sale_2", "9lives", String(repeating: "a", count: 64)])
    func acceptsLowercaseNames(name: String) {
        #expect(TemplateDocument.isValidName(name))
    }

    @Test(arguments: ["", "Welcome", "welcome!", "-welcome", "_welcome", "wel come", "café", String(repeating: "a", count: 65)])
    func refusesOtherNames(name: String) throws {
        #expect(!TemplateDocument.isValidName(name))
        let problem = try only(problems { $0.name = name })
        #expect(problem.field == "name")
        #expect(problem.file == "template")
        #expect(problem.line == nil)
    }

    @Test func refusesABadDefaultLanguage() throws {
        let problem = try only(problems { $0.defaultLanguage = "english language" })
        #expect(problem.field == "defaultLanguage")
        #expect(problem.message == "defaultLanguage \"english language\" is not a BCP 47 language tag")
    }

    @Test func needsABodyOrATitle() throws {
        let found = problems {
            $0.title = nil
            $0.body = nil
        }
        let problem = try only(found)
        #expect(problem.message == "a template needs a body or a title")
    }

    @Test func refusesBadArgumentExpressions() throws {
        let problem = try only(problems { $0.body?.arguments[1] = "vars." })
        #expect(problem.field == "body.arguments[1]")
        #expect(problem.message.hasPrefix("body.arguments[1]: "))
    }

    @Test func refusesUnknownPushTypesAndInterruptionLevels() {
        let found = problems {
            $0.payload.pushType = "alrt"
            $0.payload.interruptionLevel = "urgent"
        }
        #expect(found.map(\.field) == ["payload.pushType", "payload.interruptionLevel"])
        #expect(found.first?.message.hasPrefix("unknown push type \"alrt\" (expected one of alert, background") == true)
        #expect(found.last?.message == "unknown interruption level \"urgent\" (expected one of passive, active, time-sensitive, critical)")
    }

    @Test func refusesPayloadValuesAPNsRefuses() {
        let found = problems {
            $0.payload.relevanceScore = 2
            $0.payload.badge = -1
            $0.payload.sound = ""
            $0.payload.criticalSound = CriticalSound(name: "", volume: 1.5)
            $0.payload.custom = ["aps": 1]
        }
        #expect(
            found.map(\.field) == [
                "payload.relevanceScore", "payload.sound", "payload.criticalSound.name",
                "payload.criticalSound.volume", "payload.badge", "payload.custom.aps",
            ]
        )
    }

    @Test func needsStringsForTheDefaultLanguage() throws {
        let problem = try only(problems { $0.strings["en"] = nil })
        #expect(problem.field == "strings.en")
        #expect(problem.message == "no strings for the default language en")
    }

    @Test func reportsALanguageMissingAKey() throws {
        let problem = try only(problems { $0.strings["de"]?["GREETING_BODY"] = nil })
        #expect(problem.field == "strings.de.GREETING_BODY")
        #expect(problem.message == "de has no string for GREETING_BODY (the body)")
    }

    @Test func reportsPlaceholderCountsThatDisagree() throws {
        let problem = try only(problems { $0.strings["de"]?["GREETING_BODY"] = "Heute bei %1$@" })
        #expect(problem.field == "strings.de.GREETING_BODY")
        #expect(problem.message == "GREETING_BODY uses 1 argument slot(s) in de but 2 in the default language en")
    }

    @Test func reportsPositionsTheDefaultLanguageDoesNotUse() throws {
        let found = problems {
            $0.strings["en"]?["GREETING_BODY"] = "%2$@%% off today"
            $0.strings["ja"]?["GREETING_BODY"] = "本日%2$@%%オフ"
        }
        let problem = try only(found)
        #expect(problem.field == "strings.de.GREETING_BODY")
        #expect(problem.message == "GREETING_BODY uses argument 1 (%1$@) in de, which the default language en does not use")
    }

    @Test func reportsAnArgumentNumberOutOfRange() throws {
        let found = problems {
            $0.strings["en"]?["GREETING_TITLE"] = "Hi %1$@ from %2$@"
            $0.strings["de"]?["GREETING_TITLE"] = "Hallo %1$@ von %2$@"
            $0.strings["ja"]?["GREETING_TITLE"] = "%2$@から%1$@さんへ"
        }
        #expect(found.count == 3)
        #expect(found.allSatisfy { $0.message == "GREETING_TITLE uses argument 2 but the title has only 1 argument" })
    }

    @Test func reportsMalformedFormatStrings() throws {
        let problem = try only(problems { $0.strings["de"]?["GREETING_BODY"] = "Heute bei %1$@: %2$@ % Rabatt" })
        #expect(problem.field == "strings.de.GREETING_BODY")
        #expect(problem.message.hasPrefix("GREETING_BODY: unsupported format specifier \"% \""))
    }

    @Test func refusesLanguagesThatAreNotTags() throws {
        let problem = try only(problems { $0.strings["deutsch!"] = $0.strings["de"] })
        #expect(problem.field == "strings.deutsch!")
    }

    @Test func refusesTheSameLanguageTwice() throws {
        let problem = try only(problems { $0.strings["DE"] = $0.strings["de"] })
        #expect(problem.message == "languages \"DE\" and \"de\" are the same tag de")
    }

    @Test func reportsEveryProblemAtOnce() {
        let found = problems {
            $0.name = "Bad Name"
            $0.payload.pushType = "alrt"
            $0.strings["de"]?["GREETING_TITLE"] = nil
            $0.strings["ja"]?["GREETING_BODY"] = "%3$@"
        }
        #expect(
            found.map(\.field) == [
                "name", "payload.pushType", "strings.de.GREETING_TITLE", "strings.ja.GREETING_BODY",
                "strings.ja.GREETING_BODY",
            ]
        )
    }

    @Test func compilingAnInvalidDocumentThrowsItsProblems() {
        var document = Fixtures.greeting()
        document.name = "Bad Name"
        document.strings["de"]?["GREETING_TITLE"] = nil
        #expect(throws: TemplateLoadError(problems: document.validate())) { try CompiledTemplate(document) }
    }

    @Test func parsesAndValidatesJSONFromTheAPI() throws {
        let json = #"""
            {"name": "greeting", "defaultLanguage": "en",
             "body": {"key": "BODY", "arguments": ["vars.store"]},
             "strings": {"en": {"BODY": "Visit %@"}, "de": {"BODY": "Besuche %@"}}}
            """#
        let document = try TemplateDocument.parse(json: Data(json.utf8))
        #expect(document.body == MessagePart(key: "BODY", arguments: ["vars.store"]))
        #expect(document.clientFallback == false)
        #expect(document.payload == TemplatePayload())
        #expect(document.strings["de"] == ["BODY": "Besuche %@"])
    }

    @Test func reportsUnknownKeysAndWrongTypesInJSON() {
        let json = #"{"name": "greeting", "defaultLanguage": "en", "tittle": {}, "body": {"key": "B", "args": []}, "payload": {"badge": "three"}}"#
        do {
            _ = try TemplateDocument.parse(json: Data(json.utf8))
            Issue.record("an invalid document was accepted")
        } catch let error as TemplateLoadError {
            #expect(error.problems.map(\.field) == ["tittle", "body.args", "payload.badge"])
            #expect(error.problems[0].message.hasPrefix("unknown key tittle (expected one of body, clientFallback"))
            #expect(error.problems[2].message == "payload.badge must be an integer")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func canonicalJSONIsStableAndSorted() throws {
        let document = Fixtures.greeting()
        let json = String(decoding: document.canonicalJSON(), as: UTF8.self)
        #expect(json.hasPrefix(#"{"body":{"arguments":["vars.storeName","vars.percentOff"],"key":"GREETING_BODY"},"clientFallback":false,"#))
        #expect(document.canonicalJSON() == Fixtures.greeting().canonicalJSON())
        let decoded = try JSONDecoder().decode(TemplateDocument.self, from: document.canonicalJSON())
        #expect(decoded == document)
        var changed = document
        changed.strings["de"]?["GREETING_TITLE"] = "Servus %@"
        #expect(changed.canonicalJSON() != document.canonicalJSON())
    }
}
