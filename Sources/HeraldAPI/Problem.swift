import Foundation
import Hummingbird

/// An RFC 9457 problem document: the only shape of error a client of Herald ever sees.
/// `detail` is written for the caller and never carries a token, key or SQL.
public struct Problem: Error, HTTPResponseError, Equatable {
    public var status: HTTPResponse.Status
    /// The last part of the problem type URI, e.g. `invalid-field`.
    public var slug: String
    public var title: String
    public var detail: String
    /// The offending field, as the caller wrote it (`languages[2]`, `authorization.status`).
    public var field: String?

    public static let typePrefix = "urn:herald:problem:"

    public init(status: HTTPResponse.Status, slug: String, title: String, detail: String, field: String? = nil) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.field = field
    }

    public var type: String { Self.typePrefix + slug }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(type: type, title: title, status: Int(status.code), detail: detail, field: field)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct Body: Codable {
        var type: String
        var title: String
        var status: Int
        var detail: String
        var field: String?
    }
}

extension Problem {
    static func invalidField(_ field: String, _ detail: String) -> Problem {
        Problem(status: .unprocessableContent, slug: "invalid-field", title: "A field is invalid", detail: detail, field: field)
    }

    static func invalidRequest(_ detail: String, field: String? = nil) -> Problem {
        Problem(status: .badRequest, slug: "invalid-request", title: "The request is malformed", detail: detail, field: field)
    }

    static func invalidDeviceToken(_ detail: String) -> Problem {
        Problem(status: .badRequest, slug: "invalid-device-token", title: "The device token is invalid", detail: detail, field: "token")
    }

    static func unauthorized(_ detail: String) -> Problem {
        Problem(status: .unauthorized, slug: "unauthorized", title: "Authentication required", detail: detail)
    }

    static func forbidden(_ detail: String) -> Problem {
        Problem(status: .forbidden, slug: "forbidden", title: "Not allowed for this key", detail: detail)
    }

    static func unknownApp() -> Problem {
        Problem(status: .notFound, slug: "unknown-app", title: "Unknown app", detail: "no app has this bundle ID", field: "bundleID")
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(status: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    static func payloadTooLarge(_ detail: String) -> Problem {
        Problem(status: .contentTooLarge, slug: "payload-too-large", title: "The body is too large", detail: detail)
    }

    static func notReady(_ detail: String) -> Problem {
        Problem(status: .serviceUnavailable, slug: "not-ready", title: "Not ready", detail: detail)
    }

    static func methodNotAllowed() -> Problem {
        Problem(status: .methodNotAllowed, slug: "method-not-allowed", title: "Method not allowed",
                detail: "this path does not take this method")
    }

    static let internalError = Problem(
        status: .internalServerError, slug: "internal", title: "Internal error",
        detail: "Herald could not complete the request; the server log has the details")
}
