import HTTPTypes
import HeraldCore
import Hummingbird
import Logging
import NIOCore

/// The console's pages and their handlers; `herald serve` mounts them under `/console`.
struct Console: Sendable {
    let dependencies: ConsoleDependencies
    let auth: ConsoleAuth

    init(_ dependencies: ConsoleDependencies) {
        self.dependencies = dependencies
        auth = ConsoleAuth(users: dependencies.users, sessions: dependencies.sessions, settings: dependencies.settings)
    }
}

/// Adds the console under `/console` to `router`: its own error pages (HTML, not problem+json)
/// and its own headers on every answer.
public func addConsoleRoutes<Context: RemoteAddressRequestContext>(
    to router: Router<Context>, _ dependencies: ConsoleDependencies
) {
    let console = Console(dependencies)
    let group = router.group("console").add(middleware: ConsoleErrorMiddleware<Context>(classify: dependencies.classifyError))
    group.get { _, _ in Response.redirect(to: "/console/campaigns") }
    group.get("assets/console.css") { _, _ in ConsoleAssetResponse.make(ConsoleAssets.stylesheet, type: "text/css; charset=utf-8") }
    group.get("assets/console.js") { _, _ in
        ConsoleAssetResponse.make(ConsoleAssets.script, type: "text/javascript; charset=utf-8")
    }
    group.get("login") { request, _ in try await console.loginPage(request) }
    group.post("login") { request, context in
        try await console.login(request, address: context.remoteAddress?.ipAddress ?? "unknown")
    }
    group.post("logout") { request, _ in try await console.logout(request) }

    group.get("campaigns") { request, _ in try await console.campaignList(request) }
    group.get("campaigns/new") { request, _ in try await console.builderPage(request) }
    group.post("campaigns/new") { request, _ in try await console.builderSubmit(request) }
    group.post("campaigns/estimate") { request, _ in try await console.estimate(request) }
    group.get("campaigns/:id") { request, context in
        try await console.campaignPage(request, id: try context.parameters.require("id"))
    }
    group.get("campaigns/:id/edit") { request, context in
        try await console.editPage(request, id: try context.parameters.require("id"))
    }
    group.post("campaigns/:id/edit") { request, context in
        try await console.editSubmit(request, id: try context.parameters.require("id"))
    }
    group.get("campaigns/:id/live") { request, context in
        try await console.campaignLive(request, id: try context.parameters.require("id"))
    }
    group.get("campaigns/:id/deliveries") { request, context in
        try await console.ledgerPage(request, id: try context.parameters.require("id"))
    }
    group.post("campaigns/:id/test") { request, context in
        try await console.testSend(request, id: try context.parameters.require("id"))
    }
    group.get("journeys") { request, _ in try await console.journeysPage(request) }
    group.post("journeys") { request, _ in try await console.journeyCreate(request) }
    group.post("journeys/validate") { request, _ in try await console.journeyValidate(request) }
    group.get("journeys/:app/:name") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.journeyPage(request, bundleID: app, name: name)
    }
    group.post("journeys/:app/:name") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.journeyUpdate(request, bundleID: app, name: name)
    }
    group.post("journeys/:app/:name/:event") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.journeySteer(request, bundleID: app, name: name, event: try context.parameters.require("event"))
    }
    group.get("segments") { request, _ in try await console.segmentsPage(request) }
    group.post("segments") { request, _ in try await console.segmentCreate(request) }
    group.post("segments/evaluate") { request, _ in try await console.segmentEvaluate(request) }
    group.get("segments/:app/:name") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.segmentPage(request, bundleID: app, name: name)
    }
    group.post("segments/:app/:name") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.segmentUpdate(request, bundleID: app, name: name)
    }
    group.post("segments/:app/:name/archive") { request, context in
        let (app, name) = try Console.segmentPath(context.parameters)
        return try await console.segmentArchive(request, bundleID: app, name: name)
    }
    group.get("series") { request, _ in try await console.seriesListPage(request) }
    group.get("series/:id") { request, context in try await console.seriesPage(request, id: try context.parameters.require("id")) }
    for event in CampaignSeries.Event.allCases {
        group.post("series/:id/\(event.rawValue)") { request, context in
            try await console.seriesTransition(request, id: try context.parameters.require("id"), event: event)
        }
    }
    group.get("templates") { request, _ in try await console.templatesPage(request) }
    group.get("templates/:name") { request, context in
        try await console.templatePage(request, name: try context.parameters.require("name"))
    }
    group.get("live-activities") { request, _ in try await console.liveActivitiesPage(request) }
    group.get("live-activities/:app/:activity") { request, context in
        let (app, activity) = try Console.activityPath(context.parameters)
        return try await console.liveActivityPage(request, bundleID: app, activityID: activity)
    }
    group.post("live-activities/:app/:activity/updates") { request, context in
        let (app, activity) = try Console.activityPath(context.parameters)
        return try await console.liveActivityUpdate(request, bundleID: app, activityID: activity)
    }
    group.get("users") { request, _ in try await console.usersPage(request) }
    group.get("audit") { request, _ in try await console.auditPage(request) }
    group.get("keys") { request, _ in try await console.keysPage(request) }
    group.get("webhooks") { request, _ in try await console.webhooksPage(request) }
    group.post("webhooks") { request, _ in try await console.webhooksSubmit(request) }
    group.get("webhooks/:id") { request, context in try await console.webhookPage(request, id: try context.parameters.require("id")) }
    group.get("apps") { request, _ in try await console.appsPage(request) }
    group.get("apps/:app") { request, context in try await console.appPage(request, bundleID: try context.parameters.require("app")) }
    group.post("apps/:app") { request, context in try await console.appSubmit(request, bundleID: try context.parameters.require("app")) }
    group.post("keys") { request, _ in try await console.keysSubmit(request) }
    group.post("users") { request, _ in try await console.usersSubmit(request) }
    group.get("devices") { request, _ in try await console.devicesPage(request) }
    group.post("devices/prune") { request, _ in try await console.prune(request) }
    for event in [CampaignEvent.schedule, .pause, .resume, .cancel] {
        group.post("campaigns/:id/\(event.name)") { request, context in
            try await console.transition(request, id: try context.parameters.require("id"), event: event)
        }
    }
}

enum ConsoleAssetResponse {
    static func make(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Turns what a console handler throws into a page: redirects, the console's own errors, bad
/// form input, body limits, and (through `classify`) the database's outages as 503.
struct ConsoleErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let classify: @Sendable (any Error) -> ConsoleFailure?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            var response = try await next(request, context)
            if response.headers[.contentSecurityPolicy] == nil {
                response.headers[.contentSecurityPolicy] = ConsolePage.contentSecurityPolicy
            }
            return response
        } catch let redirect as ConsoleRedirect {
            return Response.redirect(to: redirect.location, type: .normal)
        } catch let error as ConsoleError {
            return Self.page(error)
        } catch let error as ValidationError {
            return Self.page(.badRequest("\(error.field): \(error.reason)"))
        } catch let error as any HTTPResponseError {
            let message = error.status == .contentTooLarge ? "The form is too large." : "The request could not be handled."
            return Self.page(ConsoleError(status: error.status, title: error.status.reasonPhrase, message: message))
        } catch {
            if let known = classify(error) {
                let status = HTTPResponse.Status(code: known.status)
                return Self.page(ConsoleError(status: status, title: status.reasonPhrase, message: known.message))
            }
            context.logger.error("console request failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            return Self.page(
                ConsoleError(
                    status: .internalServerError, title: "Something went wrong",
                    message: "Herald could not show this page; the server log has the details. Try again, or go back."))
        }
    }

    static func page(_ error: ConsoleError) -> Response {
        ConsolePage.render(
            title: error.title, session: nil,
            body: """
                <div class="card"><h1>\(error.title)</h1><p>\(error.message)</p>
                <p><a href="/console/campaigns">Back to campaigns</a></p></div>
                """, status: error.status)
    }
}
