import APNSCore
import Foundation

/// Turns Foundation's JSON decoding errors into one line naming the offending path, plus the
/// line number when the text itself is malformed.
enum JSONErrorDescription {
    struct Described: Equatable, Sendable {
        var line: Int?
        /// The dotted path of the offending value (`payload.badge`), empty for the whole text.
        var path: String
        var message: String
    }

    static func describe(_ error: any Error) -> Described {
        guard let decodingError = error as? DecodingError else {
            return Described(line: nil, path: "", message: "not valid JSON")
        }
        switch decodingError {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail = context.underlyingError.flatMap(Self.foundationMessage) ?? context.debugDescription
                return Described(line: lineNumber(in: detail), path: "", message: "not valid JSON: \(detail)")
            }
            let location = JSONPath.of(context.codingPath)
            return Described(line: nil, path: location, message: "\(location): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            let location = JSONPath.of(context.codingPath + [key])
            return Described(line: nil, path: location, message: "\(location) is missing")
        case .typeMismatch(let type, let context):
            let location = JSONPath.of(context.codingPath)
            let subject = location.isEmpty ? "the document" : location
            return Described(line: nil, path: location, message: "\(subject) must be \(expectation(type))")
        case .valueNotFound(let type, let context):
            let location = JSONPath.of(context.codingPath)
            return Described(line: nil, path: location, message: "\(location) must be \(expectation(type)), not null")
        @unknown default:
            return Described(line: nil, path: "", message: "not valid JSON")
        }
    }

    private static func expectation(_ type: Any.Type) -> String {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): "a string"
        case ObjectIdentifier(Bool.self): "true or false"
        case ObjectIdentifier(Int.self): "an integer"
        case ObjectIdentifier(Double.self): "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    /// Foundation's own message for malformed text (`Unexpected character 'x' around line 3,
    /// column 5.`), which it keeps under the NSDebugDescription key.
    private static func foundationMessage(_ error: any Error) -> String? {
        guard let cocoaError = error as? CocoaError else { return nil }
        return cocoaError.userInfo["NSDebugDescription"] as? String
    }

    /// The number after "line " in Foundation's message, if any.
    static func lineNumber(in text: String) -> Int? {
        guard let range = text.range(of: "line ") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}
