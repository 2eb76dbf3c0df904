/// The byte-level scanner behind ``FormatString/init(parsing:)``. Specifiers are ASCII, so the
/// text between them is cut at valid UTF-8 boundaries.
struct FormatStringParser {
    private let bytes: [UInt8]
    private(set) var segments: [FormatString.Segment] = []
    private(set) var positions: Set<Int> = []
    private(set) var literalByteCount = 0
    private var literal: [UInt8] = []
    private var sequentialCount = 0
    private var usesPositional = false

    /// The most fraction digits `%.Nf` may ask for.
    static let maximumPrecision = 15

    init(source: String) {
        bytes = Array(source.utf8)
    }

    mutating func parse() throws(FormatStringError) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == Self.percent else {
                literal.append(byte)
                index += 1
                continue
            }
            index = try specifier(at: index)
        }
        flushLiteral()
    }

    /// What a specifier shows its argument as.
    private enum Kind {
        case conversion(FormatString.Conversion)
        case plural(String)
    }

    /// Reads the specifier starting at the `%` at `start`; returns the index after it.
    private mutating func specifier(at start: Int) throws(FormatStringError) -> Int {
        var index = start + 1
        guard index < bytes.count else { throw FormatStringError(.trailingPercent) }
        if bytes[index] == Self.percent {
            literal.append(Self.percent)
            return index + 1
        }
        // An optional position: digits followed by `$`.
        var position: Int?
        var digitsEnd = index
        var value = 0
        while digitsEnd < bytes.count, Self.isDigit(bytes[digitsEnd]) {
            value = min(value * 10 + Int(bytes[digitsEnd] - UInt8(ascii: "0")), 1_000_000)
            digitsEnd += 1
        }
        if digitsEnd > index {
            // Digits without `$` are a width (`%5d`), which notifications have no use for.
            guard digitsEnd < bytes.count, bytes[digitsEnd] == UInt8(ascii: "$") else {
                throw unsupported(from: start, through: digitsEnd)
            }
            guard value >= 1 else { throw FormatStringError(.positionZero) }
            guard value <= FormatString.maximumPosition else { throw FormatStringError(.positionTooLarge(value)) }
            position = value
            index = digitsEnd + 1
        }
        let kind: Kind
        (kind, index) = try conversion(from: start, at: index)

        let argumentIndex: Int
        if let position {
            guard sequentialCount == 0 else { throw FormatStringError(.mixedSequentialAndPositional) }
            usesPositional = true
            argumentIndex = position - 1
        } else {
            guard !usesPositional else { throw FormatStringError(.mixedSequentialAndPositional) }
            argumentIndex = sequentialCount
            sequentialCount += 1
            guard sequentialCount <= FormatString.maximumPosition else {
                throw FormatStringError(.positionTooLarge(sequentialCount))
            }
        }
        flushLiteral()
        switch kind {
        case .conversion(let conversion): segments.append(.argument(argumentIndex, conversion))
        case .plural(let name): segments.append(.plural(argumentIndex, name: name))
        }
        positions.insert(argumentIndex + 1)
        return index
    }

    /// Reads the conversion at `index`: `@`; `d i u` after up to two `l`; `f` or `.Nf` (an `l`
    /// before `f` is allowed, as C does); or `#@name@`. Returns it and the index after it.
    private func conversion(from start: Int, at index: Int) throws(FormatStringError) -> (Kind, Int) {
        guard index < bytes.count else { throw unsupported(from: start, through: index) }
        switch bytes[index] {
        case UInt8(ascii: "@"):
            return (.conversion(.object), index + 1)
        case UInt8(ascii: "#"):
            return try substitution(from: start, at: index)
        case UInt8(ascii: "."):
            var end = index + 1
            var precision = 0
            while end < bytes.count, Self.isDigit(bytes[end]) {
                precision = min(precision * 10 + Int(bytes[end] - UInt8(ascii: "0")), 1_000)
                end += 1
            }
            guard end > index + 1 else { throw unsupported(from: start, through: end) }
            if end < bytes.count, bytes[end] == UInt8(ascii: "l") { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "f") else { throw unsupported(from: start, through: end) }
            guard precision <= Self.maximumPrecision else { throw FormatStringError(.precisionTooLarge(precision)) }
            return (.conversion(.decimal(precision: precision)), end + 1)
        case UInt8(ascii: "f"):
            return (.conversion(.decimal(precision: 6)), index + 1)
        default:
            var end = index
            while end < bytes.count, end - index < 2, bytes[end] == UInt8(ascii: "l") {
                end += 1
            }
            guard end < bytes.count else { throw unsupported(from: start, through: end) }
            switch bytes[end] {
            case UInt8(ascii: "d"), UInt8(ascii: "i"), UInt8(ascii: "u"):
                return (.conversion(.integer), end + 1)
            case UInt8(ascii: "f") where end == index + 1:
                return (.conversion(.decimal(precision: 6)), end + 1)
            default:
                throw unsupported(from: start, through: end)
            }
        }
    }

    /// `#@name@` at `index` (the `#`).
    private func substitution(from start: Int, at index: Int) throws(FormatStringError) -> (Kind, Int) {
        var end = index + 1
        guard end < bytes.count, bytes[end] == UInt8(ascii: "@") else {
            throw FormatStringError(.malformedSubstitution(text(from: start, to: min(end + 1, bytes.count))))
        }
        end += 1
        let nameStart = end
        while end < bytes.count, Self.isNameByte(bytes[end]) {
            end += 1
        }
        guard end > nameStart, end < bytes.count, bytes[end] == UInt8(ascii: "@") else {
            throw FormatStringError(.malformedSubstitution(text(from: start, to: min(end + 1, bytes.count))))
        }
        return (.plural(String(decoding: bytes[nameStart..<end], as: UTF8.self)), end + 1)
    }

    private mutating func flushLiteral() {
        guard !literal.isEmpty else { return }
        literalByteCount += literal.count
        segments.append(.literal(String(decoding: literal, as: UTF8.self)))
        literal.removeAll(keepingCapacity: true)
    }

    /// The error for the specifier from `start` through the offending byte at `end`.
    private func unsupported(from start: Int, through end: Int) -> FormatStringError {
        FormatStringError(.unsupportedSpecifier(text(from: start, to: min(end + 1, bytes.count))))
    }

    /// The text from `start` to `stop`, extended to keep a multi-byte character whole.
    private func text(from start: Int, to stop: Int) -> String {
        var stop = stop
        while stop < bytes.count, bytes[stop] & 0xC0 == 0x80 {
            stop += 1
        }
        return String(decoding: bytes[start..<stop], as: UTF8.self)
    }

    private static let percent = UInt8(ascii: "%")

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A substitution name: ASCII letters, digits and `_`.
    static func isNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
    }
}
