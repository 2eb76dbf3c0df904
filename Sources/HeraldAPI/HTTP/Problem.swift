import Foundation
import HeraldCore
import Hummingbird

/// An RFC 9457 problem document: the only shape of error a client of Herald ever sees.
/// `detail` is written for the caller and never carries a token, key or SQL.
public struct Problem: Error, HTTPResponseError, Equatable {
    public var status: HTTPResponse.Status
    /// The last part of the problem type URI, e.g. `invalid-field`.
    public var slug: String
    public var title: String
    public var detail: String
    /// The offending field, as the caller wrote it (`languages[2]`, `authorization.status`);
    /// with several `errors`, the first one's.
    public var field: String?
    /// Every problem, when there are several at once (a template's validation errors).
    public var errors: [FieldError]?
    /// Seconds after which the caller may try again (`Retry-After`), with 429 and 503.
    public var retryAfter: Int?

    public static let typePrefix = "urn:herald:problem:"

    /// One of several problems: the field concerned (when one is) and what is wrong with it.
    public struct FieldError: Codable, Equatable, Sendable {
        public var field: String?
        public var message: String

        public init(field: String?, message: String) {
            self.field = field
            self.message = message
        }
    }

    public init(
        status: HTTPResponse.Status, slug: String, title: String, detail: String, field: String? = nil,
        errors: [FieldError]? = nil, retryAfter: Int? = nil
    ) {
        self.retryAfter = retryAfter
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.field = field
        self.errors = errors
    }

    public var type: String { Self.typePrefix + slug }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(type: type, title: title, status: Int(status.code), detail: detail, field: field, errors: errors)
        let data = try CanonicalJSON.data(body)
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct Body: Codable {
        var type: String
        var title: String
        var status: Int
        var detail: String
        var field: String?
        var errors: [FieldError]?
    }
}

extension Problem {
    /// The problem a domain error is, the one place where its kind becomes a status.
    public init(_ refusal: Refusal) {
        let status: HTTPResponse.Status =
            switch refusal.kind {
            case .badRequest: .badRequest
            case .invalid: .unprocessableContent
            case .conflict: .conflict
            case .upstreamRefused: .badGateway
            case .upstreamBusy: .tooManyRequests
            case .upstreamUnavailable: .serviceUnavailable
            }
        self.init(
            status: status, slug: refusal.slug, title: refusal.title, detail: refusal.detail, field: refusal.field,
            errors: refusal.problems.isEmpty ? nil : refusal.problems.map { FieldError(field: $0.field, message: $0.message) },
            retryAfter: refusal.retryAfter)
    }

    static func invalidField(_ field: String, _ detail: String) -> Problem {
        Problem(status: .unprocessableContent, slug: "invalid-field", title: "A field is invalid", detail: detail, field: field)
    }

    /// Several fields are invalid at once (a template); `field` is the first one's.
    static func invalidFields(_ errors: [FieldError], detail: String) -> Problem {
        Problem(
            status: .unprocessableContent, slug: "invalid-field", title: "Fields are invalid", detail: detail,
            field: errors.first?.field, errors: errors)
    }

    static func invalidRequest(_ detail: String, field: String? = nil) -> Problem {
        Problem(status: .badRequest, slug: "invalid-request", title: "The request is malformed", detail: detail, field: field)
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

    static func unknownTemplate() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-template", title: "Unknown template", detail: "no template has this name",
            field: "name")
    }

    static func unknownTemplateVersion(_ detail: String) -> Problem {
        Problem(
            status: .notFound, slug: "unknown-template-version", title: "Unknown template version", detail: detail,
            field: "version")
    }

    static func unknownCampaign() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-campaign", title: "Unknown campaign", detail: "no campaign has this ID",
            field: "id")
    }

    /// The campaign's state does not allow the request (the lifecycle is a state machine,
    /// `CampaignStateMachine`; anything it refuses is 409).
    static func invalidTransition(_ detail: String) -> Problem {
        Problem(status: .conflict, slug: "invalid-transition", title: "Not allowed in this state", detail: detail, field: "state")
    }

    static func appDisabled(_ bundleID: String) -> Problem {
        Problem(
            status: .conflict, slug: "app-disabled", title: "The app is disabled",
            detail: "\(bundleID) is disabled: an admin must enable it before it sends again", field: "bundleID")
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(status: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    static func payloadTooLarge(_ detail: String) -> Problem {
        Problem(status: .contentTooLarge, slug: "payload-too-large", title: "The body is too large", detail: detail)
    }

    static func requestTimeout(_ detail: String) -> Problem {
        Problem(status: .requestTimeout, slug: "request-timeout", title: "The request took too long", detail: detail)
    }

    static func tooManyRequests(_ detail: String, retryAfter: Int) -> Problem {
        var problem = Problem(status: .tooManyRequests, slug: "too-many-requests", title: "Too many requests", detail: detail)
        problem.retryAfter = retryAfter
        return problem
    }

    /// The database did not answer in time, or cannot be reached: try again later.
    public static func databaseUnavailable(_ detail: String) -> Problem {
        var problem = Problem(status: .serviceUnavailable, slug: "database-unavailable", title: "Database unavailable", detail: detail)
        problem.retryAfter = 5
        return problem
    }

    /// A query that the Citus cluster Herald runs on refuses as not supported (SQLSTATE 0A000):
    /// a safeguard, since every statement Herald sends is written so that a cluster runs it
    /// (docs/scaling.md, "Which table goes where").
    public static func notSupportedOnCluster(_ detail: String) -> Problem {
        Problem(status: .notImplemented, slug: "not-supported-on-cluster", title: "Not supported on this cluster", detail: detail)
    }

    public static func notReady(_ detail: String) -> Problem {
        Problem(status: .serviceUnavailable, slug: "not-ready", title: "Not ready", detail: detail)
    }

    static func methodNotAllowed() -> Problem {
        Problem(
            status: .methodNotAllowed, slug: "method-not-allowed", title: "Method not allowed",
            detail: "this path does not take this method")
    }

    static let internalError = Problem(
        status: .internalServerError, slug: "internal", title: "Internal error",
        detail: "Herald could not complete the request; the server log has the details")
}
