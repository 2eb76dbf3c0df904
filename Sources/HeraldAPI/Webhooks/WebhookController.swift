import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// Webhook endpoints, for admins (docs/webhooks.md): `/v1/apps/{bundleID}/webhooks` for an
/// app's own endpoints (they get full device tokens and user IDs) and `/v1/admin/webhooks`
/// for endpoints that get every app's events (token suffixes only). Add one (its signing
/// secret is in that answer and nowhere else), list them with their delivery state, remove
/// one, send it a test message, and read its latest messages.
struct WebhookController {
    /// `GET …/webhooks/{id}/messages`: how many of the latest.
    struct MessagesQuery: Decodable {
        var limit: Int?
    }

    /// `POST …/webhooks`: where to deliver, which events (all without), and a note.
    struct AddBody: Decodable {
        var url: String
        var events: [String]?
        var description: String?
    }

    static let maximumMessages = 200

    let directory: AppDirectory
    let webhooks: any WebhookStore
    /// `HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`.
    let allowPrivateAddresses: Bool
    /// The app the path names, or nil for the endpoints for every app.
    let scope: @Sendable (HeraldRequestContext) async throws -> App?

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.post(use: add)
        group.delete(":webhookID", use: remove)
        group.post(":webhookID/test", use: test)
        group.get(":webhookID/messages", use: messages)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> WebhookListResponse {
        let app = try await adminScope(context)
        try RequestDecoding.noQuery(request)
        return WebhookListResponse(webhooks: try await webhooks.endpoints(appID: app?.id).map(WebhookResponse.init))
    }

    @Sendable func add(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<WebhookResponse> {
        let app = try await adminScope(context)
        let body = try await RequestDecoding.body(AddBody.self, of: request, context: context)
        let new = try NewWebhookEndpoint(
            url: body.url, events: body.events, description: body.description, allowPrivateAddresses: allowPrivateAddresses)
        let created = try await webhooks.addEndpoint(appID: app?.id, new, actor: try context.requirePrincipal().keyPrefix)
        var response = WebhookResponse(created.endpoint)
        response.secret = created.secret
        return EditedResponse(status: .created, response: response)
    }

    @Sendable func remove(request: Request, context: HeraldRequestContext) async throws -> WebhookResponse {
        let app = try await adminScope(context)
        let id = try Self.webhookID(context)
        guard let removed = try await webhooks.removeEndpoint(appID: app?.id, id: id, actor: try context.requirePrincipal().keyPrefix)
        else { throw Self.unknownWebhook() }
        return WebhookResponse(removed)
    }

    @Sendable func test(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<WebhookMessageResponse> {
        let app = try await adminScope(context)
        let id = try Self.webhookID(context)
        guard let message = try await webhooks.sendTest(appID: app?.id, id: id, actor: try context.requirePrincipal().keyPrefix)
        else { throw Self.unknownWebhook() }
        return EditedResponse(status: .accepted, response: WebhookMessageResponse(message))
    }

    @Sendable func messages(request: Request, context: HeraldRequestContext) async throws -> WebhookMessageListResponse {
        let app = try await adminScope(context)
        let id = try Self.webhookID(context)
        let limit = try PageQuery.limit(
            try RequestDecoding.query(MessagesQuery.self, of: request).limit, maximum: Self.maximumMessages, fallback: 50)
        guard let messages = try await webhooks.messages(appID: app?.id, endpointID: id, limit: limit) else {
            throw Self.unknownWebhook()
        }
        return WebhookMessageListResponse(messages: messages.map(WebhookMessageResponse.init))
    }

    private func adminScope(_ context: HeraldRequestContext) async throws -> App? {
        try context.requirePrincipal().requireAdmin()
        return try await scope(context)
    }

    static func webhookID(_ context: HeraldRequestContext) throws -> Int64 {
        guard let id = Int64(try context.parameters.require("webhookID")), id > 0 else { throw unknownWebhook() }
        return id
    }

    static func unknownWebhook() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-webhook", title: "Unknown webhook endpoint",
            detail: "there is no webhook endpoint with this ID here", field: "webhookID")
    }
}

/// An endpoint as admins see it; `secret` only in the answer that adds it.
struct WebhookResponse: ResponseEncodable {
    var id: String
    var app: String?
    var url: String
    var events: [String]
    var description: String?
    var createdAt: Date
    var pending: Int
    var lastDeliveredAt: Date?
    var lastFailure: Failure?
    var secret: String?

    struct Failure: Encodable {
        var at: Date
        var status: Int?
        var error: String
    }

    init(_ endpoint: WebhookEndpoint) {
        id = String(endpoint.id)
        app = endpoint.bundleID
        url = endpoint.url
        events = endpoint.events.map(\.rawValue)
        description = endpoint.description
        createdAt = endpoint.createdAt
        pending = endpoint.pending
        lastDeliveredAt = endpoint.lastDeliveredAt
        lastFailure = endpoint.lastFailure.map { Failure(at: $0.at, status: $0.status, error: $0.error) }
    }
}

struct WebhookListResponse: ResponseEncodable {
    var webhooks: [WebhookResponse]
}

struct WebhookMessageResponse: ResponseEncodable {
    var id: String
    var type: String
    var occurredAt: Date
    var state: String
    var attempts: Int
    var nextAttemptAt: Date?
    var lastStatus: Int?
    var lastError: String?
    var finishedAt: Date?

    init(_ message: WebhookMessageRecord) {
        id = message.messageID.uuidString.lowercased()
        type = message.type
        occurredAt = message.occurredAt
        state = message.state
        attempts = message.attempts
        nextAttemptAt = message.nextAttemptAt
        lastStatus = message.lastStatus
        lastError = message.lastError
        finishedAt = message.finishedAt
    }
}

struct WebhookMessageListResponse: ResponseEncodable {
    var messages: [WebhookMessageResponse]
}
