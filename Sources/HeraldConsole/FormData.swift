import Foundation
import HeraldCore

/// An `application/x-www-form-urlencoded` body or query, in order, keeping repeated names; or a
/// `multipart/form-data` body, whose files are kept apart (`file(_:)`).
struct FormData: Sendable {
    private(set) var fields: [(name: String, value: String)]
    private var files: [String: MultipartForm.File] = [:]

    init(fields: [(name: String, value: String)] = []) { self.fields = fields }

    init(_ multipart: MultipartForm) {
        fields = multipart.fields
        files = multipart.files
    }

    /// The file sent in `name`, if one was chosen.
    func file(_ name: String) -> MultipartForm.File? { files[name] }

    /// Parses `name=value&…`; a malformed escape or a value that is not UTF-8 is a
    /// `ValidationError` naming the field.
    init(encoded text: Substring) throws {
        fields = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], field: "form")
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", field: name)
            fields.append((name, value))
        }
    }

    /// A request's query, decoded as a browser's GET form encodes it (`+` is a space).
    init(query: String?) throws {
        try self.init(encoded: Substring(query ?? ""))
    }

    /// The first value of `name`, trimmed of surrounding spaces; nil when absent or empty.
    subscript(name: String) -> String? {
        guard let value = fields.first(where: { $0.name == name })?.value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The value as typed (untrimmed), or "".
    func raw(_ name: String) -> String { fields.first(where: { $0.name == name })?.value ?? "" }

    /// Every value of `name` (checkboxes, multiple selects).
    func all(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    func has(_ name: String) -> Bool { fields.contains { $0.name == name } }

    mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name == name }
        fields.append((name, value))
    }

    /// The fields as a query string, for links that keep a filter.
    var encoded: String {
        fields.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return output
    }

    private static func decode(_ text: Substring, field: String) throws -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw ValidationError(field: field, reason: "has a malformed %-escape")
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw ValidationError(field: field, reason: "is not UTF-8")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
