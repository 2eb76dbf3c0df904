import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// The request body as parsed JSON, before ``RequestDecoding`` reads it into a typed request,
/// and the 422 that lists a value's broken rules.
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

    /// 422 listing every validation error (`field` is the first one's); nothing when empty.
    static func check(_ errors: [ValidationError], what: String) throws {
        guard let first = errors.first else { return }
        let count = errors.count == 1 ? "1 problem" : "\(errors.count) problems"
        throw Problem.invalidFields(
            errors.map { Problem.FieldError(field: $0.field, message: $0.reason) },
            detail: "the \(what) has \(count): \(first.field) \(first.reason)")
    }
}
