import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Admins add webhook endpoints (for one app or for every app), send them a test message,
    /// see what waits and what failed, and remove them.
    func webhooksPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        return try await webhooks(session: session, notice: nil)
    }

    func webhooksSubmit(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .admin)
        let store = try webhookStore()
        let actor = session.user.actor
        switch form["intent"] {
        case "add":
            let apps = try await dependencies.apps.list()
            let appID: Int64?
            let new: NewWebhookEndpoint
            do {
                if let bundleID = form["app"] {
                    guard let app = apps.first(where: { $0.bundleID == bundleID }) else {
                        throw ValidationError(field: "app", reason: "no app \(bundleID)")
                    }
                    appID = app.id
                } else {
                    appID = nil
                }
                let events = form.all("events")
                new = try NewWebhookEndpoint(
                    url: form.raw("url").trimmingCharacters(in: .whitespaces), events: events.isEmpty ? nil : events,
                    description: form["description"], allowPrivateAddresses: dependencies.allowPrivateWebhookAddresses)
            } catch let error as ValidationError {
                return try await webhooks(
                    session: session, notice: "<p class=\"notice bad\" role=\"alert\">\(error.field): \(error.reason)</p>",
                    status: .unprocessableContent)
            }
            let created = try await store.addEndpoint(appID: appID, new, actor: actor)
            let notice: HTML = """
                <p class="notice" id="new-webhook">Added endpoint \(created.endpoint.id). Its signing secret, shown this once: <code>\(created.secret)</code></p>
                """
            return try await webhooks(session: session, notice: notice)
        case "test":
            let endpoint = try await requireEndpoint(try webhookID(form), in: store)
            _ = try await store.sendTest(appID: endpoint.appID, id: endpoint.id, actor: actor)
            return Response.redirect(to: "/console/webhooks/\(endpoint.id)" as ConsolePath, type: .normal)
        case "remove":
            let endpoint = try await requireEndpoint(try webhookID(form), in: store)
            _ = try await store.removeEndpoint(appID: endpoint.appID, id: endpoint.id, actor: actor)
            return try await webhooks(
                session: session, notice: "<p class=\"notice\">Endpoint \(endpoint.id) removed with its undelivered messages.</p>")
        default:
            throw ConsoleError.badRequest("Unknown action.")
        }
    }

    /// One endpoint's latest messages: what was delivered, what waits to be tried again and why.
    func webhookPage(_ request: Request, id: String) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        let store = try webhookStore()
        guard let id = Int64(id), id > 0 else { throw ConsoleError.notFound("webhook endpoint") }
        let endpoint = try await requireEndpoint(id, in: store)
        let messages = try await store.messages(appID: endpoint.appID, endpointID: id, limit: 50) ?? []
        let body = WebhooksView.render(WebhooksView.EndpointModel(endpoint: endpoint, messages: messages), session: session)
        return ConsolePage.render(title: "Webhook \(id)", session: session, section: .webhooks, body: body)
    }

    private func webhookStore() throws -> any WebhookStore {
        guard let store = dependencies.webhooks else { throw ConsoleError.notFound("webhooks managed") }
        return store
    }

    private func webhookID(_ form: FormData) throws -> Int64 {
        guard let id = Int64(form.raw("webhook")), id > 0 else { throw ConsoleError.badRequest("No webhook endpoint given.") }
        return id
    }

    /// The endpoint with this ID, whichever app it is for.
    private func requireEndpoint(_ id: Int64, in store: any WebhookStore) async throws -> WebhookEndpoint {
        guard let endpoint = try await allEndpoints(store).first(where: { $0.id == id }) else {
            throw ConsoleError.notFound("webhook endpoint \(id)")
        }
        return endpoint
    }

    /// The endpoints for every app, then each app's own.
    private func allEndpoints(_ store: any WebhookStore) async throws -> [WebhookEndpoint] {
        var endpoints = try await store.endpoints(appID: nil)
        for app in try await dependencies.apps.list() { endpoints += try await store.endpoints(appID: app.id) }
        return endpoints
    }

    private func webhooks(session: ConsoleSession, notice: HTML?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let store = try webhookStore()
        let model = WebhooksView.Model(
            endpoints: try await allEndpoints(store), apps: try await dependencies.apps.list().map(\.bundleID), notice: notice)
        return ConsolePage.render(
            title: "Webhooks", session: session, section: .webhooks, body: WebhooksView.render(model, session: session), status: status)
    }
}
