/// An expression giving one argument's text for a recipient:
///
///     attributes.firstName ?? "there"
///     vars.storeName
///     attributes.nickname ?? attributes.firstName ?? user.id
///
/// References: `attributes.NAME` (the device's app-defined attributes), `vars.NAME` (send-time
/// variables of the campaign or API call), `user.id` (the external user ID) and
/// `device.language` (the negotiated language tag). `??` falls back to the next term when a
/// value is missing: absent, null, empty text, an array or an object. A quoted literal always
/// has a value, so it can only come last. A format may follow, after `|`
/// (``ArgumentFilter``): `vars.total | currency(EUR)`, `vars.endsAt | date(medium)`.
public struct ArgumentExpression: Sendable, Equatable, CustomStringConvertible {
    public enum Term: Sendable, Equatable {
        case attribute(String)
        case variable(String)
        case userID
        case deviceLanguage
        case literal(String)
    }

    /// The terms tried in order.
    public let terms: [Term]
    /// How the value is formatted for the reader, when the expression says.
    public let filter: ArgumentFilter?
    /// The expression as written, without surrounding whitespace; names a missing argument.
    public let source: String

    public var description: String { source }

    public init(parsing source: String) throws(ArgumentExpressionError) {
        var parser = ArgumentExpressionParser(source)
        (terms, filter) = try parser.parse()
        var trimmed = Substring(source).drop { $0.isWhitespace }
        while trimmed.last?.isWhitespace == true {
            trimmed.removeLast()
        }
        self.source = String(trimmed)
    }
}

/// Why an argument expression cannot be compiled; one line for a template author.
public struct ArgumentExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The scanner behind ``ArgumentExpression/init(parsing:)``.
struct ArgumentExpressionParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    private static let expected = "expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    mutating func parse() throws(ArgumentExpressionError) -> ([ArgumentExpression.Term], ArgumentFilter?) {
        var terms = [ArgumentExpression.Term]()
        while true {
            skipSpaces()
            guard index < scalars.count else {
                throw ArgumentExpressionError(terms.isEmpty ? "empty expression: \(Self.expected)" : "expected a value after '??'")
            }
            if let last = terms.last, case .literal = last {
                throw ArgumentExpressionError("a \"literal\" always has a value, so nothing may follow it")
            }
            terms.append(try term())
            skipSpaces()
            guard index < scalars.count else { return (terms, nil) }
            if scalars[index] == "|" {
                index += 1
                return (terms, try filter())
            }
            guard scalars[index] == "?", index + 1 < scalars.count, scalars[index + 1] == "?" else {
                throw ArgumentExpressionError("expected '??' but found '\(scalars[index])'")
            }
            index += 2
        }
    }

    /// The format after `|`: a name, optionally with one argument in parentheses, then the end.
    private mutating func filter() throws(ArgumentExpressionError) -> ArgumentFilter {
        skipSpaces()
        let name = word { $0.properties.isLowercase }
        guard !name.isEmpty else {
            throw ArgumentExpressionError("expected a format after '|': number, percent, currency(XXX), date(…), time(…) or datetime(…)")
        }
        var argument: String?
        skipSpaces()
        if index < scalars.count, scalars[index] == "(" {
            index += 1
            skipSpaces()
            argument = word { $0.properties.isAlphabetic || ("0"..."9").contains($0) }
            skipSpaces()
            guard index < scalars.count, scalars[index] == ")" else {
                throw ArgumentExpressionError("\(name)(…): expected ')' after the format's argument")
            }
            index += 1
        }
        let filter = try ArgumentFilter(name: name, argument: argument)
        skipSpaces()
        guard index >= scalars.count else {
            throw ArgumentExpressionError("unexpected '\(scalars[index])' after the format \(filter): it ends the expression")
        }
        return filter
    }

    /// The longest run of scalars from here that pass `accepts`.
    private mutating func word(_ accepts: (Unicode.Scalar) -> Bool) -> String {
        var text = String.UnicodeScalarView()
        while index < scalars.count, text.count < 32, accepts(scalars[index]) {
            text.append(scalars[index])
            index += 1
        }
        return String(text)
    }

    private mutating func skipSpaces() {
        while index < scalars.count, scalars[index].properties.isWhitespace {
            index += 1
        }
    }

    private mutating func term() throws(ArgumentExpressionError) -> ArgumentExpression.Term {
        if scalars[index] == "\"" { return .literal(try literal()) }
        var word = String.UnicodeScalarView()
        while index < scalars.count, Self.isWordScalar(scalars[index]) {
            word.append(scalars[index])
            index += 1
        }
        guard !word.isEmpty else {
            throw ArgumentExpressionError("unexpected '\(scalars[index])': \(Self.expected)")
        }
        let reference = String(word)
        guard let dot = reference.firstIndex(of: ".") else {
            throw ArgumentExpressionError("unknown reference \"\(reference)\": \(Self.expected)")
        }
        let root = reference[..<dot]
        let name = reference[reference.index(after: dot)...]
        switch root {
        case "attributes":
            return .attribute(try Self.validName(name, in: reference))
        case "vars":
            return .variable(try Self.validName(name, in: reference))
        case "user" where name == "id":
            return .userID
        case "device" where name == "language":
            return .deviceLanguage
        default:
            throw ArgumentExpressionError("unknown reference \"\(reference)\": \(Self.expected)")
        }
    }

    /// A `"quoted"` literal; `\"` and `\\` escape.
    private mutating func literal() throws(ArgumentExpressionError) -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "\"" { return String(text) }
            if scalar == "\\", index < scalars.count {
                text.append(scalars[index])
                index += 1
            } else {
                text.append(scalar)
            }
        }
        throw ArgumentExpressionError("unterminated \"literal\"")
    }

    private static func validName(_ name: Substring, in reference: String) throws(ArgumentExpressionError) -> String {
        guard !name.isEmpty, name.firstIndex(of: ".") == nil else {
            throw ArgumentExpressionError(
                "\"\(reference)\": a name after attributes. or vars. is one word of letters, digits, _ or -"
            )
        }
        return String(name)
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x61...0x7A, 0x41...0x5A, 0x30...0x39: true
        default: scalar == "_" || scalar == "-" || scalar == "."
        }
    }
}
