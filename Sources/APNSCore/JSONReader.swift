/// A JSON parser from UTF-8 bytes straight to a ``PayloadValue``.
///
/// Every JSON request body, each line of a device import and each device's attributes read by
/// a campaign go through here, so it walks the bytes once and throws only for a document that is
/// not JSON (never to probe a type, as a `Decodable` route into a sum type does). It reads
/// RFC 8259 JSON and nothing else: no comments, no trailing commas, no NaN or infinity, no raw
/// control characters in strings, no invalid UTF-8, no lone surrogate escapes. Numbers: an
/// integer literal that fits `Int` is `.int` (so is one written with a fraction or exponent whose
/// value is an exact `Int`, e.g. `2.0` or `1e3`); any other number is `.double`, and one too large
/// for a `Double` is an error. A repeated object key keeps its first value, as Foundation's
/// `JSONDecoder` (which this replaced) does. Containers nest at most ``maximumDepth`` deep.
public struct JSONReader {
    /// Deeper documents are refused rather than risk the stack.
    public static let maximumDepth = 512

    /// Why bytes are not a JSON document: at which byte offset, and at which value (a
    /// ``JSONPath`` such as `aps.alert.loc-args[1]`, empty for the document itself).
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var path: String
        /// The text is JSON, but a value in it cannot be held: a number beyond a `Double`, a
        /// string that is not valid UTF-8 or has a lone surrogate.
        public var unreadableValue: Bool

        public var description: String {
            "\(reason) at byte \(offset)" + (path.isEmpty ? "" : " (\(path))")
        }
    }

    /// Parses one JSON document (any value, surrounded by optional whitespace).
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> PayloadValue {
        let result: Result<PayloadValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) in try parse(buffer: buffer) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(Failure) in try parse(buffer: buffer) }
    }

    /// Reads without noting where it is; only a document that fails is read again, noting the
    /// path, so the failure can name the value.
    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> PayloadValue {
        do {
            return try parse(buffer: buffer, tracksPath: false)
        } catch {
            // The second reading fails at the same byte, now with the path.
            _ = try parse(buffer: buffer, tracksPath: true)
            throw error
        }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, tracksPath: Bool) throws(Failure) -> PayloadValue {
        var reader = JSONReader(bytes: buffer)
        reader.tracksPath = tracksPath
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == buffer.count else { throw reader.failure("unexpected data after the JSON value") }
        return value
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var tracksPath = false
    private var path = ""

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func failure(_ reason: String, unreadableValue: Bool = false) -> Failure {
        Failure(offset: offset, reason: reason, path: path, unreadableValue: unreadableValue)
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func readValue(depth: Int) throws(Failure) -> PayloadValue {
        guard let byte = current else { throw failure("the document ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"):
            return try readObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try readNumber()
        default:
            throw failure("unexpected character where a value should be")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw failure("unknown literal") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw failure("unknown literal")
        }
        offset += count
    }

    private mutating func readObject(depth: Int) throws(Failure) -> PayloadValue {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        offset += 1
        var members = [String: PayloadValue]()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
            let key = try readString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            offset += 1
            skipWhitespace()
            let parent = path
            if tracksPath { path = JSONPath.member(key, of: parent) }
            let value = try readValue(depth: depth)
            path = parent
            if members[key] == nil { members[key] = value }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            default:
                throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func readArray(depth: Int) throws(Failure) -> PayloadValue {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        offset += 1
        var elements = [PayloadValue]()
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        let parent = path
        while true {
            skipWhitespace()
            if tracksPath { path = JSONPath.element(elements.count, of: parent) }
            elements.append(try readValue(depth: depth))
            path = parent
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            default:
                throw failure("expected ',' or ']' in an array")
            }
        }
    }

    /// Reads a string starting at its opening quote. Runs without escapes are validated as
    /// UTF-8 and copied in one piece.
    private mutating func readString() throws(Failure) -> String {
        offset += 1
        let start = offset
        // The common case: no escapes, so the bytes between the quotes are the string.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8(start..<offset)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character in a string must be escaped") }
            offset += 1
        }
        var scalars = [UInt8](bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return try utf8(scalars)
            case UInt8(ascii: "\\"):
                offset += 1
                try readEscape(into: &scalars)
            case 0..<0x20:
                throw failure("a control character in a string must be escaped")
            default:
                scalars.append(byte)
                offset += 1
            }
        }
        throw failure("the document ends inside a string")
    }

    private mutating func readEscape(into output: inout [UInt8]) throws(Failure) {
        guard let byte = current else { throw failure("the document ends inside a string") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try readHex4())
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by an escaped low one.
                guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
                else { throw failure("a lone surrogate in a \\u escape", unreadableValue: true) }
                offset += 2
                let low = UInt32(try readHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone surrogate in a \\u escape", unreadableValue: true) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw failure("a lone surrogate in a \\u escape", unreadableValue: true)
            }
            guard let scalar = Unicode.Scalar(code) else { throw failure("an invalid \\u escape") }
            output.append(contentsOf: UTF8.encode(scalar)!)
        default:
            throw failure("an unknown escape in a string")
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt16 {
        guard bytes.count - offset >= 4 else { throw failure("a \\u escape needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    private func utf8(_ range: Range<Int>) throws(Failure) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw failure("a string is not valid UTF-8", unreadableValue: true)
        }
        return text
    }

    private func utf8(_ scalars: [UInt8]) throws(Failure) -> String {
        guard let text = String(validating: scalars, as: UTF8.self) else {
            throw failure("a string is not valid UTF-8", unreadableValue: true)
        }
        return text
    }

    /// Reads a number by RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func readNumber() throws(Failure) -> PayloadValue {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        guard let first = current, isDigit(first) else { throw failure("a number needs a digit") }
        offset += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, isDigit(byte) { offset += 1 }
        }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            offset += 1
            guard let byte = current, isDigit(byte) else { throw failure("a fraction needs a digit") }
            while let byte = current, isDigit(byte) { offset += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard let byte = current, isDigit(byte) else { throw failure("an exponent needs a digit") }
            while let byte = current, isDigit(byte) { offset += 1 }
        }
        let literal = UnsafeBufferPointer(rebasing: bytes[start..<offset])
        if integral, let value = Self.integer(literal) { return .int(value) }
        // Only ASCII digits, signs, '.' and 'e' reach here.
        let text = String(decoding: literal, as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            offset = start
            throw failure("a number too large for a double", unreadableValue: true)
        }
        // An integer literal too large for `Int` stays a double; `2.0` and `1e3` are integers.
        if !integral, let exact = Int(exactly: value) { return .int(exact) }
        return .double(value)
    }

    /// The literal as an `Int`, nil when it overflows.
    private static func integer(_ literal: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let negative = literal[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var value = 0
        while index < literal.count {
            let digit = Int(literal[index] &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
