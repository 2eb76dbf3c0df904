/// A piece of HTML that is safe to send: text interpolated into it is escaped, so device
/// attributes, template text and campaign names (all user data) can only ever show as text.
/// Literals are trusted: they are Herald's own markup. Only `HTML(trusted:)` skips escaping,
/// and it takes Herald's own constants.
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var text: String

    init(trusted text: String) { self.text = text }

    init(stringLiteral value: String) { text = value }

    init(stringInterpolation: StringInterpolation) { text = stringInterpolation.output }

    static let empty = HTML(trusted: "")

    var description: String { text }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.text + rhs.text) }

    static func += (lhs: inout HTML, rhs: HTML) { lhs.text += rhs.text }

    struct StringInterpolation: StringInterpolationProtocol {
        var output = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            output.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) { output += literal }

        /// Text: escaped for both element content and double-quoted attribute values.
        mutating func appendInterpolation(_ text: String) { HTML.escape(text, into: &output) }

        mutating func appendInterpolation(_ text: Substring) { HTML.escape(String(text), into: &output) }

        mutating func appendInterpolation(_ html: HTML) { output += html.text }

        mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { output += part.text }
        }

        mutating func appendInterpolation(_ html: HTML?) { output += html?.text ?? "" }

        mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { output += String(number) }
    }

    /// Escapes the five characters that matter in content and quoted attributes.
    static func escape(_ text: String, into output: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.unicodeScalars.append(scalar)
            }
        }
    }

    static func escaped(_ text: String) -> String {
        var output = ""
        escape(text, into: &output)
        return output
    }
}

extension Sequence {
    /// The elements, each made HTML, one after another.
    func html(_ transform: (Element) throws -> HTML) rethrows -> HTML {
        var output = HTML.empty
        for element in self { output += try transform(element) }
        return output
    }
}
