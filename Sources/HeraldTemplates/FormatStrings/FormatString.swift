/// An Apple format string (`%@`, `%1$@`, `%d`, `%.2f`, `%#@items@`, `%%`…) compiled once into
/// literal text and argument references, and rendered the way iOS fills a localized string
/// (docs/apns.md "Localization", docs/templates.md "Plurals and formatted values").
///
/// Supported: `%@` (the argument's text), the integer conversions apps use in their strings
/// (`%d %i %u %ld %lld %lu %llu`, shown with the language's digits and grouping), `%f` and
/// `%.Nf` (a decimal with N fraction digits, 6 when N is left out, as C does), `%#@name@` (the
/// plural substitution `name`, chosen by the argument's number), and `%%` (a percent sign).
/// Each may be positional (`%2$@`, `%1$#@items@`). One string uses either sequential or
/// positional specifiers, never both.
public struct FormatString: Sendable, Equatable, CustomStringConvertible {
    /// How an argument is shown.
    public enum Conversion: Sendable, Equatable, Hashable {
        /// `%@`: the text as it is.
        case object
        /// `%d` and its kin: an integer in the language's digits and grouping.
        case integer
        /// `%f`, `%.2f`: a decimal with this many fraction digits.
        case decimal(precision: Int)
    }

    /// One piece of a compiled format string.
    public enum Segment: Sendable, Equatable {
        /// Text copied as is (`%%` already turned into `%`).
        case literal(String)
        /// The argument at a 0-based index, shown by a conversion.
        case argument(Int, Conversion)
        /// `%#@name@`: the form of plural substitution `name` the argument at a 0-based index
        /// selects.
        case plural(Int, name: String)
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
    /// True when every argument is `%@` and nothing is plural: rendering is plain splicing.
    let isPlain: Bool

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
        self.isPlain = parser.segments.allSatisfy {
            switch $0 {
            case .literal, .argument(_, .object): true
            case .argument, .plural: false
            }
        }
    }

    /// The names of the plural substitutions the string uses, in order, each once.
    public var substitutionNames: [String] {
        var names = [String]()
        for case .plural(_, let name) in segments where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// The conversions each 0-based argument index is shown with (plural tokens not included).
    var conversions: [Int: Set<Conversion>] {
        var conversions = [Int: Set<Conversion>]()
        for case .argument(let index, let conversion) in segments {
            conversions[index, default: []].insert(conversion)
        }
        return conversions
    }

    /// The text with every argument reference replaced by its argument's text as is; a
    /// reference past the end of `arguments` renders as empty text (template validation rules
    /// that out). Plural tokens render as nothing: ``LocalizedString`` fills those.
    public func render(arguments: [String]) -> String {
        // Most strings are one literal or one argument: no new buffer for those.
        if segments.count == 1 {
            switch segments[0] {
            case .literal(let text): return text
            case .argument(let index, _): return index < arguments.count ? arguments[index] : ""
            case .plural: return ""
            }
        }
        var capacity = literalByteCount
        for segment in segments {
            if case .argument(let index, _) = segment, index < arguments.count {
                capacity += arguments[index].utf8.count
            }
        }
        var text = String()
        text.reserveCapacity(capacity)
        for segment in segments {
            switch segment {
            case .literal(let literal):
                text.append(literal)
            case .argument(let index, _):
                if index < arguments.count { text.append(arguments[index]) }
            case .plural:
                break
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
        /// `%#@` without a name of letters, digits and `_` closed by `@`.
        case malformedSubstitution(String)
        /// `%.Nf` with N above ``FormatStringParser/maximumPrecision``.
        case precisionTooLarge(Int)
    }

    public var reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unsupportedSpecifier(let specifier):
            "unsupported format specifier \"\(specifier)\": use %@, %1$@ … %n$@, %d, %.2f, %#@name@, or %% for a percent sign"
        case .trailingPercent:
            "lone '%' at the end of the text: write %% for a percent sign"
        case .positionZero:
            "argument position 0 (%0$…) is invalid: positions start at 1"
        case .positionTooLarge(let position):
            "argument position \(position) is too large (at most \(FormatString.maximumPosition))"
        case .mixedSequentialAndPositional:
            "mixes sequential (%@) with positional (%n$@) specifiers: use one style per string"
        case .malformedSubstitution(let specifier):
            "malformed plural substitution \"\(specifier)\": write %#@name@ with a name of letters, digits and _"
        case .precisionTooLarge(let precision):
            "precision \(precision) is too large (at most \(FormatStringParser.maximumPrecision) fraction digits)"
        }
    }
}
