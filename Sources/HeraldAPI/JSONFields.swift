import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// Reading fields of a parsed JSON object with errors that name the exact field. Unknown
/// keys are refused at every level, so a misspelt field is never silently ignored.
enum JSONFields {
    /// The request's body as a JSON object (read up to `limit`, the endpoint's upload size by
    /// default): 400 when it is not JSON or not an object (`what` says what it should be),
    /// 422 naming the field when a string or key holds a character Herald cannot store
    /// (`parse(_:)`). Every JSON route reads its body here.
    static func bodyObject(
        _ request: Request, context: HeraldRequestContext, upTo limit: Int? = nil, what: String = "a JSON object"
    ) async throws -> [String: PayloadValue] {
        let body = try await request.body.collect(upTo: limit ?? context.maxUploadSize)
        guard case .object(let object) = try parse(body.readableBytesView) else {
            throw Problem.invalidRequest("the body must be \(what)")
        }
        return object
    }

    /// Parses one JSON document into a value: a 400 problem when it is not JSON, a 422 naming
    /// the field when any string or key in it holds a character Herald cannot store or send
    /// (`TextRules`).
    static func parse(_ bytes: some Collection<UInt8>) throws -> PayloadValue {
        let value: PayloadValue
        do {
            value = try JSONReader.parse(bytes)
        } catch {
            throw Problem.invalidRequest("the body is not valid JSON: \(error)")
        }
        if let (field, scalar) = TextRules.firstForbidden(in: value) {
            throw Problem.invalidField(field.isEmpty ? "body" : field, TextRules.reason(scalar))
        }
        return value
    }

    /// A `ValidationError` (422, `unknown field`) on the first key of `object`, in sorted order,
    /// that is not in `known`, named below `prefix`. Every route reads its objects through this.
    static func refuseUnknown(_ object: [String: PayloadValue], known: Set<String>, prefix: String? = nil)
        throws(ValidationError)
    {
        for key in object.keys.sorted() where !known.contains(key) {
            throw ValidationError(field: prefix.map { "\($0).\(key)" } ?? key, reason: "unknown field")
        }
    }

    static func object(_ value: PayloadValue?, field: String) throws -> [String: PayloadValue]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?: return members
        default: throw Problem.invalidField(field, "must be a JSON object")
        }
    }

    static func string(_ value: PayloadValue?, field: String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Problem.invalidField(field, "must be a string")
        }
    }

    static func requiredString(_ value: PayloadValue?, field: String) throws -> String {
        guard let text = try string(value, field: field) else { throw Problem.invalidField(field, "is required") }
        return text
    }

    static func int(_ value: PayloadValue?, field: String) throws -> Int? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)?: return number
        default: throw Problem.invalidField(field, "must be an integer")
        }
    }

    static func bool(_ value: PayloadValue?, field: String) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw Problem.invalidField(field, "must be true or false")
        }
    }

    static func date(_ value: PayloadValue?, field: String) throws -> Date? {
        guard let text = try string(value, field: field) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw Problem.invalidField(field, "must be an RFC 3339 time such as 2026-12-01T09:00:00Z")
        }
        return date
    }

    /// A `Decodable` value from a JSON value, with the field below `field` named in errors
    /// (``RequestDecoding``).
    static func decode<Value: Decodable>(_ type: Value.Type, from value: PayloadValue, field: String) throws -> Value {
        try RequestDecoding.decode(type, from: value, field: field)
    }

    /// 422 listing every validation error (`field` is the first one's); nothing when empty.
    static func check(_ errors: [ValidationError], what: String) throws {
        guard let first = errors.first else { return }
        let count = errors.count == 1 ? "1 problem" : "\(errors.count) problems"
        throw Problem.invalidFields(
            errors.map { Problem.FieldError(field: $0.field, message: $0.reason) },
            detail: "the \(what) has \(count): \(first.field) \(first.reason)")
    }
}
