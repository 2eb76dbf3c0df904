import Foundation
import HeraldCore

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file input: the
/// text fields become `FormData` fields and the files are kept as bytes, by field name.
/// Only what browsers send is read: one level of parts, each with a `Content-Disposition:
/// form-data; name="…"` header and, for files, a `filename`.
struct MultipartForm {
    struct File: Sendable {
        var filename: String
        var bytes: [UInt8]
    }

    var fields: [(name: String, value: String)] = []
    var files: [String: File] = [:]

    /// The boundary of a `multipart/form-data` content type; nil for any other type.
    static func boundary(contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parts.first, type.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            // RFC 2046 §5.1.1: 1 to 70 characters.
            guard (1...70).contains(value.utf8.count) else { return nil }
            return value
        }
        return nil
    }

    /// Reads the parts; a body that does not follow the format, a field that is not UTF-8 or a
    /// part without a name is a `ValidationError`.
    init(_ body: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else {
            throw ValidationError(field: "form", reason: "is not multipart/form-data with its boundary")
        }
        position += delimiter.count
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[position...].starts(with: [0x2D, 0x2D]) { return }
            guard body[position...].starts(with: [0x0D, 0x0A]) else {
                throw ValidationError(field: "form", reason: "has a malformed part boundary")
            }
            position += 2
            guard let headerEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position) else {
                throw ValidationError(field: "form", reason: "has a part without headers")
            }
            let disposition = try Self.disposition(headers: body[position..<headerEnd])
            let contentStart = headerEnd + 4
            guard let next = Self.find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else {
                throw ValidationError(field: "form", reason: "ends inside a part")
            }
            let content = Array(body[contentStart..<next])
            if let filename = disposition.filename {
                // A file input left empty still sends a part, with no file name and no bytes.
                if !filename.isEmpty || !content.isEmpty { files[disposition.name] = File(filename: filename, bytes: content) }
            } else {
                guard let value = String(validating: content, as: UTF8.self) else {
                    throw ValidationError(field: disposition.name, reason: "is not UTF-8")
                }
                fields.append((disposition.name, value))
            }
            position = next + 2 + delimiter.count
        }
    }

    /// The `name` and `filename` of a part's `Content-Disposition: form-data` header.
    private static func disposition(headers: ArraySlice<UInt8>) throws -> (name: String, filename: String?) {
        guard let text = String(validating: headers, as: UTF8.self) else {
            throw ValidationError(field: "form", reason: "has part headers that are not UTF-8")
        }
        for line in text.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "content-disposition" else { continue }
            var name: String?
            var filename: String?
            for parameter in pair[1].split(separator: ";").dropFirst() {
                let item = parameter.split(separator: "=", maxSplits: 1)
                guard item.count == 2 else { continue }
                let key = item[0].trimmingCharacters(in: .whitespaces).lowercased()
                let value = unquote(item[1].trimmingCharacters(in: .whitespaces))
                if key == "name" { name = value } else if key == "filename" { filename = value }
            }
            guard let name, !name.isEmpty else { break }
            return (name, filename)
        }
        throw ValidationError(field: "form", reason: "has a part without a name")
    }

    /// Browsers quote names and escape a quote inside as `%22` (the HTML standard's encoding).
    private static func unquote(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        return String(value.dropFirst().dropLast()).replacingOccurrences(of: "%22", with: "\"")
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
