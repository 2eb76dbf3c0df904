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
    static func decode<Value: Decodable>(
        _ type: Value.Type, from value: PayloadValue, field: String? = nil
    )
        throws(ValidationError) -> Value
    {
        try reading(type, from: value, with: decoder, under: field, unknown: "unknown field")
    }

    /// The request's body as `type`: 400 when the body is not JSON or not an object, 422
    /// naming the field otherwise (``JSONFields/bodyObject(_:context:upTo:what:)``).
    static func body<Value: Decodable>(
        _ type: Value.Type, of request: Request, context: HeraldRequestContext, upTo limit: Int? = nil
    ) async throws -> Value {
        let object = try await JSONFields.bodyObject(request, context: context, upTo: limit)
        return try decode(type, from: .object(object))
    }

    /// `type` from `value` by `decoder`, every error a ``ValidationError`` below `prefix`; a key
    /// the type does not read is called `unknown` (a body's field, a URL's parameter).
    static func reading<Value: Decodable>(
        _ type: Value.Type, from value: PayloadValue, with decoder: PayloadValueDecoder, under prefix: String?,
        unknown: String
    ) throws(ValidationError) -> Value {
        do {
            return try decoder.decode(type, from: value)
        } catch let error as DecodingError {
            var (field, reason) = error.fieldAndReason
            if reason == "unknown field" { reason = unknown }
            let name = [prefix, field.isEmpty ? nil : field].compactMap { $0 }.joined(separator: field.hasPrefix("[") ? "" : ".")
            throw ValidationError(field: name.isEmpty ? "body" : name, reason: reason)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError(field: prefix ?? "body", reason: "cannot be read")
        }
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
        return try reading(type, from: .object(members), with: queryDecoder, under: nil, unknown: "unknown query parameter")
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
        get throws { try PageQuery.version(version) }
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

}
