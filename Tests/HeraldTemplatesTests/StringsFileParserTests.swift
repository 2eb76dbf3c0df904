import Foundation
import Testing

@testable import HeraldTemplates

@Suite struct StringsFileParserTests {
    @Test func readsEntriesBetweenComments() throws {
        let text = """
            /* Header comment
               over two lines with "quotes" and = signs; */
            "A" = "one"; // trailing comment
            // "B" = "commented out";
            "B"="two";
              C   =   three.with/unquoted:chars$ ;
            "D" = "two
            lines";
            "E";
            """
        let table = try StringsFileParser.parse(text: text)
        #expect(table == ["A": "one", "B": "two", "C": "three.with/unquoted:chars$", "D": "two\nlines", "E": "E"])
    }

    @Test func decodesEscapes() throws {
        let text = #"""
            "E" = "quote \" backslash \\ apostrophe \' newline \n tab \t return \r nul \0 octal \101 end";
            "U" = "\U00e9 \u2603 \UD83D\UDE00 \ud83c\udf89";
            """#
        let table = try StringsFileParser.parse(text: text)
        #expect(table["E"] == "quote \" backslash \\ apostrophe ' newline \n tab \t return \r nul \u{0} octal A end")
        #expect(table["U"] == "é ☃ 😀 🎉")
    }

    @Test func keepsUnicodeTextAsWritten() throws {
        let text = #""GREETING" = "Grüße, 你好, مرحبا, こんにちは 👨‍👩‍👧‍👦";"#
        #expect(try StringsFileParser.parse(text: text) == ["GREETING": "Grüße, 你好, مرحبا, こんにちは 👨‍👩‍👧‍👦"])
        // Keys may be Unicode too.
        #expect(try StringsFileParser.parse(text: #""Schlüssel" = "Wert";"#) == ["Schlüssel": "Wert"])
    }

    private static let sample = "/* Deutsch */\n\"TITLE\" = \"Grüße %@ 🎉\";\n"

    @Test func readsUTF8WithAndWithoutAByteOrderMark() throws {
        let plain = Data(Self.sample.utf8)
        #expect(try StringsFileParser.parse(plain) == ["TITLE": "Grüße %@ 🎉"])
        #expect(try StringsFileParser.parse(Data([0xEF, 0xBB, 0xBF]) + plain) == ["TITLE": "Grüße %@ 🎉"])
    }

    @Test func readsUTF16WithAByteOrderMark() throws {
        var little = Data([0xFF, 0xFE])
        var big = Data([0xFE, 0xFF])
        for unit in Self.sample.utf16 {
            little.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)])
            big.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)])
        }
        #expect(try StringsFileParser.parse(little) == ["TITLE": "Grüße %@ 🎉"])
        #expect(try StringsFileParser.parse(big) == ["TITLE": "Grüße %@ 🎉"])
    }

    @Test func refusesBytesThatAreNotUTF8WithTheirLine() {
        let bytes = Data(#""A" = "1";"#.utf8) + Data([0x0A]) + Data(#""B" = ""#.utf8) + Data([0xFF]) + Data(#"";"#.utf8)
        #expect(
            throws: StringsFileError(
                line: 2, message: "not valid UTF-8: save the file as UTF-8, or UTF-16 with a byte order mark"
            )
        ) { try StringsFileParser.parse(bytes) }
    }

    @Test(arguments: [
        ("\"A\" = \"one\"\n\"B\" = \"two\";", StringsFileError(line: 1, message: "expected ';' after value")),
        ("\"A\" = \"one\";\n\n\"B\" = \"two;\n", StringsFileError(line: 3, message: "unterminated string (started here)")),
        ("\"A\" = \"1\";\n\"A\" = \"2\";", StringsFileError(line: 2, message: "duplicate key \"A\" (first defined on line 1)")),
        ("\"A\" \"one\";", StringsFileError(line: 1, message: "expected '=' after key \"A\" but found '\"'")),
        ("\"A\" = ;", StringsFileError(line: 1, message: "expected a value (a quoted string) after '=' for key \"A\"")),
        ("\"A\" = \"1\";\n= \"2\";", StringsFileError(line: 2, message: "expected a key (a quoted string) but found '='")),
        ("\"A\" = \"1\";\n\"B\"", StringsFileError(line: 2, message: "expected '=' after key \"B\"")),
        ("\"A\" = \"1\";\n/* open\n\n", StringsFileError(line: 2, message: "unterminated comment (started here)")),
        ("\n\"A\" = \"bad \\q escape\";", StringsFileError(line: 2, message: "unknown escape \\q in a string")),
        ("\"A\" = \"\\uD83D alone\";", StringsFileError(line: 1, message: "unpaired surrogate \\uD83D: write the pair as \\uD83D\\uDE00")),
        ("\"A\" = \"\\uDE00\";", StringsFileError(line: 1, message: "unpaired surrogate \\uDE00: a low surrogate must follow a high one")),
        ("\"A\" = \"\\u12\";", StringsFileError(line: 1, message: "\\u needs four hexadecimal digits")),
    ])
    func reportsMalformedInputWithItsLine(text: String, expected: StringsFileError) {
        #expect(throws: expected) { try StringsFileParser.parse(text: text) }
    }

    @Test func keepsTheLineOfEveryEntry() throws {
        let entries = try StringsFileParser.entries(in: "/* a\n b */\n\"A\" = \"1\";\n\n\"B\" =\n \"2\";")
        #expect(entries.map(\.line) == [3, 5])
    }

    @Test func readsAnEmptyFile() throws {
        #expect(try StringsFileParser.parse(text: "").isEmpty)
        #expect(try StringsFileParser.parse(text: "/* nothing */\n// here\n").isEmpty)
    }
}
