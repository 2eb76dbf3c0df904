import Foundation
import Hummingbird

/// A console URL, escaped by type as `HTML` is: the literal parts as written, every
/// interpolated value percent-encoded as one path segment (a segment or journey name with `/`,
/// `?` or `#` stays one segment), query values form-encoded. Interpolated into `HTML` it is
/// HTML-escaped on top, like any text; handed to a redirect it is used as it is.
struct ConsolePath: ExpressibleByStringInterpolation, Sendable, Equatable, CustomStringConvertible {
    let description: String

    init(stringLiteral value: String) {
        description = value
    }

    init(stringInterpolation: StringInterpolation) {
        description = stringInterpolation.output
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var output = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            output.reserveCapacity(literalCapacity + 24 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            output += literal
        }

        /// A value as one path segment: everything but unreserved characters percent-encoded.
        mutating func appendInterpolation(_ segment: String) {
            output += segment.addingPercentEncoding(withAllowedCharacters: ConsolePath.unreserved) ?? ""
        }

        mutating func appendInterpolation(_ id: UUID) {
            output += id.uuidString.lowercased()
        }

        mutating func appendInterpolation(_ number: some BinaryInteger) {
            output += String(number)
        }

        /// A path already built, as it is: `"\(path)/pause"`.
        mutating func appendInterpolation(_ path: ConsolePath) {
            output += path.description
        }

        /// A query value: `?app=\(query: bundleID)`.
        mutating func appendInterpolation(query value: String) {
            output += FormData.encode(value)
        }

        /// A whole query, already form-encoded: `?\(query: filter)`.
        mutating func appendInterpolation(query form: FormData) {
            output += form.encoded
        }
    }

    /// RFC 3986's unreserved characters.
    static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}

extension HTML.StringInterpolation {
    mutating func appendInterpolation(_ path: ConsolePath) {
        appendInterpolation(path.description)
    }
}

extension Response {
    /// A redirect to a console page.
    static func redirect(to path: ConsolePath, type: RedirectType) -> Response {
        redirect(to: path.description, type: type)
    }
}
