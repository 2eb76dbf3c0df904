import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// The one way a request body (or part of one) becomes a typed request: a `Decodable` type
/// read from the parsed JSON by ``PayloadValueDecoder``, with unknown keys refused and every
/// error a ``ValidationError`` naming the field (422 problem+json).
enum RequestDecoding {
    static let decoder = PayloadValueDecoder(parseDate: RFC3339.parse)

    /// `type` from `value`; `field` prefixes the names in errors (a value inside a larger body).
    static func decode<Value: Decodable>(_ type: Value.Type, from value: PayloadValue, field: String? = nil)
        throws(ValidationError) -> Value
    {
        do {
            return try decoder.decode(type, from: value)
        } catch let error as DecodingError {
            throw validationError(error, under: field)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError(field: field ?? "body", reason: "cannot be read: \(type)")
        }
    }

    /// The request's body as `type`: 400 when the body is not JSON or not an object, 422
    /// naming the field otherwise (``JSONFields/bodyObject(_:context:upTo:what:)``).
    static func body<Value: Decodable>(
        _ type: Value.Type, of request: Request, context: HeraldRequestContext, upTo limit: Int? = nil
    ) async throws -> Value {
        let object = try await JSONFields.bodyObject(request, context: context, upTo: limit)
        return try decode(type, from: .object(object))
    }

    static func validationError(_ error: DecodingError, under prefix: String?) -> ValidationError {
        let (field, reason) = error.fieldAndReason
        let name = [prefix, field.isEmpty ? nil : field].compactMap { $0 }.joined(separator: field.hasPrefix("[") ? "" : ".")
        return ValidationError(field: name.isEmpty ? "body" : name, reason: reason)
    }
}

extension RequestDecoding {
    static let queryDecoder = PayloadValueDecoder(parseDate: RFC3339.parse, readsScalarsFromStrings: true)

    /// The URL's query as `type`, read by the same rules as a body: numbers, flags and times
    /// given as text, a parameter the type does not read refused (`unknown query parameter`),
    /// 422 naming the parameter. A parameter given twice counts with its last value.
    static func query<Value: Decodable>(_ type: Value.Type, of request: Request) throws(ValidationError) -> Value {
        var members = [String: PayloadValue]()
        for (key, value) in request.uri.queryParameters { members[String(key)] = .string(String(value)) }
        do {
            return try queryDecoder.decode(type, from: .object(members))
        } catch let error as DecodingError {
            let refused = validationError(error, under: nil)
            let reason = refused.reason == "unknown field" ? "unknown query parameter" : refused.reason
            throw ValidationError(field: refused.field, reason: reason)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError(field: "query", reason: "cannot be read")
        }
    }

    /// Refuses any query parameter, for routes that take none.
    static func noQuery(_ request: Request) throws(ValidationError) {
        _ = try query(NoQuery.self, of: request)
    }

    /// A query with no parameters: every one given is unknown.
    struct NoQuery: Decodable {
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: PayloadCodingKey.self)
        }
    }
}

/// `?app=com.example.app`: the app a list or a new template is for.
struct AppQuery: Decodable {
    var app: String?
}

/// `?version=N`: a version of a saved segment or journey (the latest without).
struct VersionQuery: Decodable {
    var version: Int?

    /// The version, checked: 1 or more.
    var checked: Int? {
        get throws {
            guard let version else { return nil }
            guard version >= 1 else { throw Problem.invalidField("version", "must be a version number") }
            return version
        }
    }
}

/// `?cursor=…&limit=…`: keyset paging by row ID.
struct KeysetQuery: Decodable {
    var cursor: Int64?
    var limit: Int?
}

/// `?state=…&cursor=…&limit=…`: a list filtered by state, paged newest first by a cursor Herald
/// gave (``NewestFirstCursor``).
struct StatePageQuery<State: Decodable>: Decodable {
    var state: State?
    var cursor: String?
    var limit: Int?

    /// The cursor, checked to be one Herald gave.
    func checkedCursor(isKey: (String) -> Bool) throws -> String? {
        guard let cursor else { return nil }
        guard NewestFirstCursor(cursor, isKey: isKey) != nil else { throw Problem.invalidField("cursor", "not a cursor Herald gave") }
        return cursor
    }
}
