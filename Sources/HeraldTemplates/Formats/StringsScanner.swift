/// The scanner behind ``StringsFileParser``: walks the text's Unicode scalars once, counting
/// lines so every error names the line it is on.
struct StringsScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    private var atEnd: Bool { index >= scalars.count }

    mutating func entries() throws(StringsFileError) -> [StringsFileParser.Entry] {
        var entries = [StringsFileParser.Entry]()
        var firstLines = [String: Int]()
        while true {
            try skipTrivia()
            if atEnd { break }
            let keyLine = line
            guard let key = try token() else {
                throw error("expected a key (a quoted string) but found \(Self.shown(scalars[index]))")
            }
            let keyEndLine = line
            try skipTrivia()
            guard !atEnd else { throw error("expected '=' after key \"\(key)\"", line: keyEndLine) }
            let value: String
            if scalars[index] == ";" {
                // `"KEY";` is the old plist shorthand for `"KEY" = "KEY";`.
                value = key
            } else {
                guard scalars[index] == "=" else {
                    throw error("expected '=' after key \"\(key)\" but found \(Self.shown(scalars[index]))")
                }
                index += 1
                try skipTrivia()
                guard !atEnd, let parsed = try token() else {
                    throw error("expected a value (a quoted string) after '=' for key \"\(key)\"")
                }
                value = parsed
                let valueEndLine = line
                try skipTrivia()
                guard !atEnd, scalars[index] == ";" else { throw error("expected ';' after value", line: valueEndLine) }
            }
            index += 1
            if let first = firstLines[key] {
                throw error("duplicate key \"\(key)\" (first defined on line \(first))", line: keyLine)
            }
            firstLines[key] = keyLine
            entries.append(StringsFileParser.Entry(key: key, value: value, line: keyLine))
        }
        return entries
    }

    /// Skips whitespace, `/* block */` and `// line` comments.
    private mutating func skipTrivia() throws(StringsFileError) {
        while !atEnd {
            let scalar = scalars[index]
            if scalar == "\n" {
                line += 1
                index += 1
            } else if scalar.properties.isWhitespace || scalar == "\u{FEFF}" {
                index += 1
            } else if scalar == "/", next == "*" {
                let startLine = line
                index += 2
                while true {
                    guard !atEnd else { throw error("unterminated comment (started here)", line: startLine) }
                    if scalars[index] == "*", next == "/" {
                        index += 2
                        break
                    }
                    if scalars[index] == "\n" { line += 1 }
                    index += 1
                }
            } else if scalar == "/", next == "/" {
                while !atEnd, scalars[index] != "\n" {
                    index += 1
                }
            } else {
                return
            }
        }
    }

    private var next: Unicode.Scalar? {
        index + 1 < scalars.count ? scalars[index + 1] : nil
    }

    /// A quoted string, an unquoted word, or nil when neither starts here.
    private mutating func token() throws(StringsFileError) -> String? {
        guard !atEnd else { return nil }
        if scalars[index] == "\"" { return try quoted() }
        var word = String.UnicodeScalarView()
        while !atEnd, Self.isUnquoted(scalars[index]) {
            // `//` and `/*` start a comment even right after a word.
            if scalars[index] == "/", next == "/" || next == "*" { break }
            word.append(scalars[index])
            index += 1
        }
        return word.isEmpty ? nil : String(word)
    }

    private mutating func quoted() throws(StringsFileError) -> String {
        let startLine = line
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard !atEnd else { throw error("unterminated string (started here)", line: startLine) }
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                try escape(into: &text, stringLine: startLine)
            default:
                if scalar == "\n" { line += 1 }
                text.append(scalar)
            }
        }
    }

    private mutating func escape(into text: inout String.UnicodeScalarView, stringLine: Int) throws(StringsFileError) {
        guard !atEnd else { throw error("unterminated string (started here)", line: stringLine) }
        let scalar = scalars[index]
        index += 1
        if let digit = Self.octalDigit(scalar) {
            // `\0` to `\377`: up to three octal digits.
            var value = digit
            var digits = 1
            while digits < 3, !atEnd, let more = Self.octalDigit(scalars[index]) {
                value = value * 8 + more
                digits += 1
                index += 1
            }
            text.append(Unicode.Scalar(UInt8(truncatingIfNeeded: value)))
            return
        }
        switch scalar {
        case "\"", "\\", "'": text.append(scalar)
        case "n": text.append("\n")
        case "t": text.append("\t")
        case "r": text.append("\r")
        case "a": text.append("\u{07}")
        case "b": text.append("\u{08}")
        case "f": text.append("\u{0C}")
        case "v": text.append("\u{0B}")
        case "\n":
            // A backslash before a line break keeps the break.
            line += 1
            text.append(scalar)
        case "u", "U": text.append(try unicodeEscape())
        default:
            throw error("unknown escape \\\(scalar) in a string")
        }
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair.
    private mutating func unicodeEscape() throws(StringsFileError) -> Unicode.Scalar {
        let unit = try hexUnit()
        if (0xDC00...0xDFFF).contains(unit) {
            throw error("unpaired surrogate \\u\(Self.hex(unit)): a low surrogate must follow a high one")
        }
        guard (0xD800...0xDBFF).contains(unit) else {
            // Not a surrogate, so always a valid scalar.
            return Unicode.Scalar(unit) ?? "\u{FFFD}"
        }
        guard index + 1 < scalars.count, scalars[index] == "\\", scalars[index + 1] == "u" || scalars[index + 1] == "U"
        else { throw error("unpaired surrogate \\u\(Self.hex(unit)): write the pair as \\uD83D\\uDE00") }
        index += 2
        let low = try hexUnit()
        guard (0xDC00...0xDFFF).contains(low) else {
            throw error("unpaired surrogate \\u\(Self.hex(unit)): \\u\(Self.hex(low)) is not a low surrogate")
        }
        let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    private mutating func hexUnit() throws(StringsFileError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard !atEnd, let digit = Self.hexDigit(scalars[index]) else {
                throw error("\\u needs four hexadecimal digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func error(_ message: String, line: Int? = nil) -> StringsFileError {
        StringsFileError(line: line ?? self.line, message: message)
    }

    /// `[A-Za-z0-9_.$:/-]`: what an unquoted key or value may hold.
    private static func isUnquoted(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x61...0x7A, 0x41...0x5A, 0x30...0x39: true
        default: scalar == "_" || scalar == "." || scalar == "$" || scalar == ":" || scalar == "/" || scalar == "-"
        }
    }

    private static func octalDigit(_ scalar: Unicode.Scalar) -> Int? {
        scalar.value >= 0x30 && scalar.value <= 0x37 ? Int(scalar.value - 0x30) : nil
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt16? {
        switch scalar.value {
        case 0x30...0x39: UInt16(scalar.value - 0x30)
        case 0x41...0x46: UInt16(scalar.value - 0x41 + 10)
        case 0x61...0x66: UInt16(scalar.value - 0x61 + 10)
        default: nil
        }
    }

    private static func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A scalar as an error message shows it: quoted, or named when invisible.
    private static func shown(_ scalar: Unicode.Scalar) -> String {
        scalar.properties.isWhitespace || scalar.value < 0x20 ? "U+\(hex(UInt16(truncatingIfNeeded: scalar.value)))" : "'\(scalar)'"
    }
}
