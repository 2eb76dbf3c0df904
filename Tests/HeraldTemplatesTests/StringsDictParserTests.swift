import Foundation
import Testing

@testable import HeraldTemplates

@Suite struct StringsDictParserTests {
    /// Two plural variables in one string (the order of the numbers differs from the order of
    /// the words), a device-specific entry, and a plain one.
    static let russian = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>LANDED</key>
            <dict>
                <key>NSStringLocalizedFormatKey</key>
                <string>%2$#@geese@ сели на %1$#@fields@</string>
                <key>geese</key>
                <dict>
                    <key>NSStringFormatSpecTypeKey</key>
                    <string>NSStringPluralRuleType</string>
                    <key>NSStringFormatValueTypeKey</key>
                    <string>d</string>
                    <key>one</key>
                    <string>%2$d гусь</string>
                    <key>few</key>
                    <string>%2$d гуся</string>
                    <key>many</key>
                    <string>%2$d гусей</string>
                    <key>other</key>
                    <string>%2$d гуся</string>
                </dict>
                <key>fields</key>
                <dict>
                    <key>NSStringFormatSpecTypeKey</key>
                    <string>NSStringPluralRuleType</string>
                    <key>NSStringFormatValueTypeKey</key>
                    <string>d</string>
                    <key>one</key>
                    <string>%1$d поле</string>
                    <key>few</key>
                    <string>%1$d поля</string>
                    <key>many</key>
                    <string>%1$d полей</string>
                    <key>other</key>
                    <string>%1$d поля</string>
                </dict>
            </dict>
            <key>TAP</key>
            <dict>
                <key>NSStringDeviceSpecificRuleType</key>
                <dict>
                    <key>mac</key>
                    <string>Нажмите</string>
                    <key>other</key>
                    <string>Коснитесь</string>
                </dict>
            </dict>
        </dict>
        </plist>
        """

    @Test func readsPluralVariablesAndDeviceVariationsWithTheirLines() throws {
        let entries = try StringsDictParser.parse(Data(Self.russian.utf8))
        let landed = try #require(entries["LANDED"])
        #expect(landed.format == "%2$#@geese@ сели на %1$#@fields@")
        #expect(landed.substitutions["geese"]?["many"] == "%2$d гусей")
        #expect(landed.substitutions["fields"]?["one"] == "%1$d поле")
        #expect(landed.line == 5)
        #expect(entries["TAP"] == StringsDictParser.Entry(format: "Коснитесь", substitutions: [:], line: 40))
    }

    @Test func aTemplateWithAStringsDictRendersEachCountInItsForm() throws {
        let folder = try Fixtures.directory([
            "landing/template.json": """
            {"name": "landing", "defaultLanguage": "ru",
             "body": {"key": "LANDED", "arguments": ["attributes.fields", "attributes.geese"]}}
            """,
            "landing/ru.lproj/Localizable.stringsdict": Self.russian,
            "landing/ru.lproj/Localizable.strings": "\"HELLO\" = \"Привет\";\n",
        ])
        let document = try TemplateLoader.loadTemplate(folder: folder.appendingPathComponent("landing"))
        #expect(document.strings["ru"]?["HELLO"] == "Привет")
        let template = try CompiledTemplate(document)
        for (geese, fields, expected) in [(1, 2, "1 гусь сели на 2 поля"), (5, 21, "5 гусей сели на 21 поле"), (22, 11, "22 гуся сели на 11 полей")] {
            let recipient = Fixtures.recipient(["ru"], attributes: ["geese": .int(geese), "fields": .int(fields)])
            let outcome = template.render(for: recipient, options: RenderOptions(mode: .server))
            #expect(outcome.notification?.payload.aps.alert == .fields(.init(body: expected)))
        }
    }

    @Test func problemsNameTheFileKeyAndLine() throws {
        let broken = Self.russian.replacingOccurrences(of: "<string>%1$d полей</string>", with: "<string>%1$d полей</strin>")
        let wrongType = Self.russian.replacingOccurrences(
            of: "<key>fields</key>\n        <dict>\n            <key>NSStringFormatSpecTypeKey</key>\n            <string>NSStringPluralRuleType",
            with:
                "<key>fields</key>\n        <dict>\n            <key>NSStringFormatSpecTypeKey</key>\n            <string>NSStringVariableWidthRuleType"
        )
        let noOther = Self.russian.replacingOccurrences(of: "<key>other</key>\n            <string>%2$d гуся</string>", with: "")
        #expect(wrongType != Self.russian && noOther != Self.russian)
        let template = """
            {"name": "landing", "defaultLanguage": "ru", "body": {"key": "LANDED", "arguments": ["attributes.fields", "attributes.geese"]}}
            """
        let folder = try Fixtures.directory([
            "broken/template.json": template.replacingOccurrences(of: "landing", with: "broken"),
            "broken/ru.stringsdict": broken,
            "type/template.json": template.replacingOccurrences(of: "landing", with: "type"),
            "type/ru.stringsdict": wrongType,
            "other/template.json": template.replacingOccurrences(of: "landing", with: "other"),
            "other/ru.stringsdict": noOther,
        ])
        do {
            _ = try TemplateLoader.load(directory: folder)
            Issue.record("broken stringsdict files were accepted")
        } catch {
            let lines = error.problems.map(\.description)
            #expect(lines.contains("broken/ru.stringsdict:35: not a valid property list: an end tag does not match its start tag"), "\(lines)")
            #expect(
                lines.contains(
                    "type/ru.stringsdict:5: LANDED.fields: NSStringFormatSpecTypeKey is \"NSStringVariableWidthRuleType\"; Herald reads NSStringPluralRuleType"
                ), "\(lines)")
            #expect(lines.contains("other/ru.stringsdict:5: plurals.ru.LANDED.geese has no other form, which every plural needs"), "\(lines)")
            #expect(lines.allSatisfy { !$0.contains("\n") })
        }
    }

    @Test func aBinaryPropertyListIsReadWithoutLines() throws {
        let plist: [String: Any] = [
            "ITEMS": [
                "NSStringLocalizedFormatKey": "%#@n@",
                "n": ["NSStringFormatSpecTypeKey": "NSStringPluralRuleType", "one": "%d item", "other": "%d items"],
            ]
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let entries = try StringsDictParser.parse(data)
        #expect(entries["ITEMS"] == StringsDictParser.Entry(format: "%#@n@", substitutions: ["n": ["one": "%d item", "other": "%d items"]], line: 0))
        #expect(throws: StringsDictError.self) { try StringsDictParser.parse(Data("bplist00garbage".utf8)) }
    }

    @Test func aCatalogWithTwoSubstitutionsTiesEachToItsArgument() throws {
        let catalog = #"""
            {"sourceLanguage": "en", "version": "1.0", "strings": {
              "FILES": {"localizations": {"en": {
                "stringUnit": {"state": "translated", "value": "%#@folders@ hold %#@files@"},
                "substitutions": {
                  "files": {"argNum": 1, "formatSpecifier": "lld", "variations": {"plural": {
                    "one": {"stringUnit": {"state": "translated", "value": "%arg file"}},
                    "other": {"stringUnit": {"state": "translated", "value": "%arg files"}}}}},
                  "folders": {"argNum": 2, "formatSpecifier": "lld", "variations": {"plural": {
                    "one": {"stringUnit": {"state": "translated", "value": "One folder"}},
                    "other": {"stringUnit": {"state": "translated", "value": "%arg folders"}}}}}}}}}}}
            """#
        let parsed = try StringCatalogParser.parse(Data(catalog.utf8))
        #expect(parsed.strings["en"]?["FILES"] == "%2$#@folders@ hold %1$#@files@")
        #expect(parsed.plurals["en"]?["FILES"]?["files"] == ["one": "%lld file", "other": "%lld files"])
        let document = TemplateDocument(
            name: "files", defaultLanguage: "en", body: MessagePart(key: "FILES", arguments: ["vars.files", "vars.folders"]),
            strings: parsed.strings, plurals: parsed.plurals)
        let template = try CompiledTemplate(document)
        let outcome = template.render(
            for: Fixtures.recipient(["en"]), options: RenderOptions(mode: .server, variables: ["files": 1, "folders": 1]))
        #expect(outcome.notification?.payload.aps.alert == .fields(.init(body: "One folder hold 1 file")))
        let many = template.render(
            for: Fixtures.recipient(["en"]), options: RenderOptions(mode: .server, variables: ["files": 1200, "folders": 3]))
        #expect(many.notification?.payload.aps.alert == .fields(.init(body: "3 folders hold 1,200 files")))
    }

    @Test func pluralProblemsInAnAPIDocumentNameTheirField() {
        let document = TemplateDocument(
            name: "bad", defaultLanguage: "en", body: MessagePart(key: "BODY", arguments: ["vars.n"]),
            strings: ["en": ["BODY": "%#@items@ and %#@missing@"], "de": ["BODY": "%#@items@"]],
            plurals: [
                "en": ["BODY": ["items": ["one": "%d item", "lots": "%d items", "other": "%d %2$@"], "unused": ["other": "x"]]],
                "de": ["BODY": ["items": ["one": "%d Artikel"]]],
                "fr": ["BODY": ["items": ["other": "%d articles"]]],
            ])
        let problems = document.validate()
        let fields = Set(problems.compactMap(\.field))
        #expect(
            fields.isSuperset(of: [
                "plurals.en.BODY.missing", "plurals.en.BODY.items.lots", "plurals.en.BODY.items.other", "plurals.en.BODY.unused",
                "plurals.de.BODY.items.other", "plurals.fr",
            ]), "\(problems)")
        #expect(throws: TemplateLoadError.self) { try CompiledTemplate(document) }
    }
}
