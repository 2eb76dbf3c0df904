/// An Apple format string (`%@`, `%1$@`, `%%`, `%d`…) compiled once into literal text and
/// argument references, and rendered the way iOS fills `loc-args` into a `Localizable.strings`
/// value (docs/apns.md "Localization").
///
/// Supported: `%@` (the next argument), `%n$@` (argument n, 1-based, any order), `%%` (a percent
/// sign), and the integer conversions apps use in their strings (`%d %i %u %ld %lld %lu %llu`,
/// also positional as `%1$d`), which render the argument's text as is. One string uses either
/// sequential or positional specifiers, never both.
public struct FormatString: Sendable, Equatable, CustomStringConvertible {
    /// One piece of a compiled format string.
    public enum Segment: Sendable, Equatable {
        /// Text copied as is (`%%` already turned into `%`).
        case literal(String)
        /// The argument at a 0-based index.
        case argument(Int)
    }

    /// The text as written.
    public let source: String
    /// Literal text and argument references, in order.
    public let segments: [Segment]
    /// The number of argument slots the string needs: its highest position (0 for none).
    public let argumentCount: Int
    /// The 1-based positions the string uses, sorted, each once.
    public let usedPositions: [Int]
    /// UTF-8 bytes of literal text, so rendering reserves the right capacity up front.
    let literalByteCount: Int

    /// The highest position accepted; `loc-args` arrays are short, a larger number is a typo.
    public static let maximumPosition = 99

    public var description: String { source }

    /// Compiles `source`, or throws the first specifier Herald (and iOS) cannot fill.
    public init(parsing source: String) throws(FormatStringError) {
        var parser = FormatStringParser(source: source)
        try parser.parse()
        self.source = source
        self.segments = parser.segments
        self.literalByteCount = parser.literalByteCount
        let positions = parser.positions.sorted()
        self.usedPositions = positions
        self.argumentCount = positions.last ?? 0
    }

    /// The text with every argument reference replaced by its argument; a reference past the
    /// end of `arguments` renders as empty text (template validation rules that out).
    public func render(arguments: [String]) -> String {
        // Most strings are one literal or one argument: no new buffer for those.
        if segments.count == 1 {
            switch segments[0] {
            case .literal(let text): return text
            case .argument(let index): return index < arguments.count ? arguments[index] : ""
            }
        }
        var capacity = literalByteCount
        for segment in segments {
            if case .argument(let index) = segment, index < arguments.count {
                capacity += arguments[index].utf8.count
            }
        }
        var text = String()
        text.reserveCapacity(capacity)
        for segment in segments {
            switch segment {
            case .literal(let literal):
                text.append(literal)
            case .argument(let index):
                if index < arguments.count { text.append(arguments[index]) }
            }
        }
        return text
    }
}

/// Why a format string cannot be compiled. The description is one line for a template author.
public struct FormatStringError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// A `%` followed by something other than the supported specifiers; holds the specifier.
        case unsupportedSpecifier(String)
        /// The string ends with a single `%`.
        case trailingPercent
        /// `%0$@`: positions start at 1.
        case positionZero
        /// A position above ``FormatString/maximumPosition``.
        case positionTooLarge(Int)
        /// `%@` and `%n$@` in one string.
        case mixedSequentialAndPositional
    }

    public var reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unsupportedSpecifier(let specifier):
            "unsupported format specifier \"\(specifier)\": use %@, %1$@ … %n$@, %d, or %% for a percent sign"
        case .trailingPercent:
            "lone '%' at the end of the text: write %% for a percent sign"
        case .positionZero:
            "argument position 0 (%0$…) is invalid: positions start at 1"
        case .positionTooLarge(let position):
            "argument position \(position) is too large (at most \(FormatString.maximumPosition))"
        case .mixedSequentialAndPositional:
            "mixes %@ with positional %n$@ specifiers: use one style per string"
        }
    }
}

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
        index = try conversion(from: start, at: index)

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
        segments.append(.argument(argumentIndex))
        positions.insert(argumentIndex + 1)
        return index
    }

    /// Checks the conversion at `index` (`@`, or `d i u` after up to two `l`); returns the index
    /// after it.
    private func conversion(from start: Int, at index: Int) throws(FormatStringError) -> Int {
        guard index < bytes.count else { throw unsupported(from: start, through: index) }
        if bytes[index] == UInt8(ascii: "@") { return index + 1 }
        var end = index
        while end < bytes.count, end - index < 2, bytes[end] == UInt8(ascii: "l") {
            end += 1
        }
        guard end < bytes.count,
            bytes[end] == UInt8(ascii: "d") || bytes[end] == UInt8(ascii: "i") || bytes[end] == UInt8(ascii: "u")
        else { throw unsupported(from: start, through: end) }
        return end + 1
    }

    private mutating func flushLiteral() {
        guard !literal.isEmpty else { return }
        literalByteCount += literal.count
        segments.append(.literal(String(decoding: literal, as: UTF8.self)))
        literal.removeAll(keepingCapacity: true)
    }

    /// The error for the specifier from `start` through the offending byte at `end`.
    private func unsupported(from start: Int, through end: Int) -> FormatStringError {
        var stop = min(end + 1, bytes.count)
        // Keep a multi-byte character whole in the message.
        while stop < bytes.count, bytes[stop] & 0xC0 == 0x80 {
            stop += 1
        }
        return FormatStringError(.unsupportedSpecifier(String(decoding: bytes[start..<stop], as: UTF8.self)))
    }

    private static let percent = UInt8(ascii: "%")

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
