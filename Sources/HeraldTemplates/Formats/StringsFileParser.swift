import Foundation

/// Reads Apple's `.strings` files (old-style property list syntax):
///
///     /* A block comment */
///     "WELCOME_TITLE" = "Welcome to %@";   // a line comment
///     SHORT_KEY = value.with/unquoted:chars;
///
/// Escapes `\" \\ \' \n \t \r \a \b \f \v`, octal `\0`…`\377`, and `\uXXXX` / `\UXXXX` (UTF-16
/// code units, surrogate pairs joined). `"KEY";` alone means the value is the key. The bytes may
/// be UTF-8 (with or without a byte order mark) or UTF-16 with a byte order mark, as Xcode and
/// older tools write them.
public enum StringsFileParser {
    /// One `key = value;` pair and the line its key starts on.
    struct Entry: Equatable, Sendable {
        var key: String
        var value: String
        var line: Int
    }

    /// The key → value table of a `.strings` file's bytes.
    public static func parse(_ data: Data) throws(StringsFileError) -> [String: String] {
        let text = try decodeText(data)
        let found = try entries(in: text)
        return table(found)
    }

    /// The key → value table of `.strings` text.
    public static func parse(text: String) throws(StringsFileError) -> [String: String] {
        let found = try entries(in: text)
        return table(found)
    }

    /// Every entry in file order; a repeated key is an error.
    static func entries(in text: String) throws(StringsFileError) -> [Entry] {
        var scanner = StringsScanner(text: text)
        return try scanner.entries()
    }

    private static func table(_ entries: [Entry]) -> [String: String] {
        var table = [String: String](minimumCapacity: entries.count)
        for entry in entries {
            table[entry.key] = entry.value
        }
        return table
    }

    /// The text of a file: UTF-16 when it starts with a byte order mark, UTF-8 otherwise.
    static func decodeText(_ data: Data) throws(StringsFileError) -> String {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) {
            return try decodeUTF16(bytes.dropFirst(2), littleEndian: true)
        }
        if bytes.starts(with: [0xFE, 0xFF]) {
            return try decodeUTF16(bytes.dropFirst(2), littleEndian: false)
        }
        let utf8 = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        if let offset = UTF8Check.firstInvalidOffset(in: utf8) {
            let line = 1 + utf8.prefix(offset).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw StringsFileError(
                line: line, message: "not valid UTF-8: save the file as UTF-8, or UTF-16 with a byte order mark"
            )
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static func decodeUTF16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) throws(StringsFileError) -> String {
        guard bytes.count % 2 == 0 else {
            throw StringsFileError(line: 1, message: "UTF-16 file has an odd number of bytes")
        }
        var units = [UInt16]()
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index])
            let second = UInt16(bytes[index + 1])
            units.append(littleEndian ? first | second << 8 : first << 8 | second)
            index += 2
        }
        let text = String(decoding: units, as: UTF16.self)
        // Decoding replaces an unpaired surrogate with U+FFFD; a round trip shows it.
        guard text.utf16.elementsEqual(units) else {
            throw StringsFileError(line: 1, message: "not valid UTF-16: the file holds an unpaired surrogate")
        }
        return text
    }
}

/// Why a `.strings` file cannot be read: the 1-based line and a one-line message.
public struct StringsFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
