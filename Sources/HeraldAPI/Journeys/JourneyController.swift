import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps/{bundleID}/journeys`: an app's journeys (docs/journeys.md): saved as drafts in
/// versions, activated, paused, resumed and archived, and their reports. Marketing and admin
/// keys. A graph that could not run is refused with the JSON path of its problem below
/// `journey.` (`journey.steps.remind.send.template`), and nothing is stored.
struct JourneyController {
    /// `POST …/journeys`: a name, a note, and the graph (``JourneyDefinition``'s own JSON).
    struct CreateBody: Decodable {
        var name: String
        var description: String?
        var journey: PayloadValue?
    }

    /// `PATCH …/journeys/{name}`: a new graph (a new version), a new note (`null` removes it),
    /// or both.
    struct EditBody: Decodable {
        var journey: PayloadValue?
        var description: PatchField<String>
    }

    /// `POST …/journeys/validate`.
    struct ValidateBody: Decodable {
        var journey: PayloadValue?
    }

    let directory: AppDirectory
    let journeys: any JourneyRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get("journeys", use: list)
        group.post("journeys", use: create)
        group.post("journeys/validate", use: validate)
        group.get("journeys/:name", use: show)
        group.patch("journeys/:name", use: edit)
        group.get("journeys/:name/report", use: report)
        group.get("journeys/:name/deliveries", use: deliveries)
        for event in Journey.Event.allCases {
            group.post("journeys/:name/\(event.rawValue)") { _, context in try await transition(event, context: context) }
        }
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<JourneyResponse> {
        let app = try await self.app(context)
        let body = try await RequestDecoding.body(CreateBody.self, of: request, context: context)
        let name = body.name
        if let problem = Journey.nameProblem(name) { throw Problem.invalidField("name", problem) }
        let description = try Self.checked(description: body.description)
        let definition = try Self.definition(body.journey)
        let actor = try context.requirePrincipal().keyPrefix
        let saved = try Self.saved(
            try await journeys.create(appID: app.id, name: name, description: description, definition: definition, actor: actor),
            name: name)
        return EditedResponse(status: .created, response: JourneyResponse(saved, bundleID: app.bundleID))
    }

    @Sendable func edit(request: Request, context: HeraldRequestContext) async throws -> JourneyResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let body = try await RequestDecoding.body(EditBody.self, of: request, context: context)
        let definition = try body.journey.map { try Self.definition($0) }
        let description: String?? = try body.description.change.map { try Self.checked(description: $0) }
        guard definition != nil || description != nil else { throw Problem.invalidRequest("give journey or description") }
        let actor = try context.requirePrincipal().keyPrefix
        let saved = try Self.saved(
            try await journeys.update(appID: app.id, name: name, definition: definition, description: description, actor: actor),
            name: name)
        return JourneyResponse(saved, bundleID: app.bundleID)
    }

    /// Checks a graph as saving would, without saving it (the console's editor).
    @Sendable func validate(request: Request, context: HeraldRequestContext) async throws -> JourneyCheckResponse {
        _ = try await self.app(context)
        let body = try await RequestDecoding.body(ValidateBody.self, of: request, context: context)
        let graph = try JourneyDefinition(json: try Self.definition(body.journey))
        return JourneyCheckResponse(valid: true, steps: graph.steps.count)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> JourneyResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let version = try Self.version(request)
        guard let journey = try await journeys.journey(appID: app.id, name: name, version: version) else {
            throw Self.unknownJourney()
        }
        return JourneyResponse(journey, bundleID: app.bundleID)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> JourneyListResponse {
        let app = try await self.app(context)
        try RequestDecoding.noQuery(request)
        return JourneyListResponse(journeys: try await journeys.journeys(appID: app.id).map { JourneyResponse($0, bundleID: app.bundleID) })
    }

    @Sendable func report(request: Request, context: HeraldRequestContext) async throws -> JourneyReportResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let version = try Self.version(request)
        guard let journey = try await journeys.journey(appID: app.id, name: name, version: version) else {
            throw Self.unknownJourney()
        }
        return JourneyReportResponse(name: journey.name, report: try await journeys.report(journeyID: journey.id, version: version))
    }

    /// `GET …/journeys/{name}/deliveries`: filters and keyset paging.
    struct DeliveriesQuery: Decodable {
        var cursor: Int64?
        var limit: Int?
        var step: String?
        var version: Int?
        var userID: String?
        var outcome: DeliveryOutcome.Kind?

        var checked: JourneyDeliveryQuery {
            get throws {
                var query = JourneyDeliveryQuery()
                query.cursor = try PageQuery.cursor(cursor) ?? query.cursor
                query.limit = try PageQuery.limit(limit, maximum: 1000, fallback: query.limit)
                if let step {
                    guard JourneyDefinition.isStepID(step) else {
                        throw Problem.invalidField("step", "must be a step ID: 1 to 64 letters, digits, _ or -")
                    }
                    query.step = step
                }
                if let version {
                    guard version >= 1, version <= Int(Int32.max) else { throw Problem.invalidField("version", "must be a version number") }
                    query.version = version
                }
                if let userID {
                    guard DeviceRegistration.isValidUserID(userID) else { throw Problem.invalidField("userID", DeviceRegistration.userIDRule) }
                    query.userID = userID
                }
                query.outcome = outcome
                return query
            }
        }
    }

    /// The journey's send ledger, one row per device, by row ID (`cursor`, `limit` ≤ 1000),
    /// filtered by `step`, `version`, `userID` and `outcome`.
    @Sendable func deliveries(request: Request, context: HeraldRequestContext) async throws -> JourneyDeliveriesResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let query = try RequestDecoding.query(DeliveriesQuery.self, of: request).checked
        guard let journey = try await journeys.journey(appID: app.id, name: name, version: nil) else { throw Self.unknownJourney() }
        let rows = try await journeys.deliveries(journeyID: journey.id, query: query)
        return JourneyDeliveriesResponse(
            deliveries: rows.map(JourneyDeliveriesResponse.Row.init),
            nextCursor: rows.count == query.limit ? rows.last.map { String($0.id) } : nil)
    }

    private func transition(_ event: Journey.Event, context: HeraldRequestContext) async throws -> JourneyResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let actor = try context.requirePrincipal().keyPrefix
        let saved = try Self.saved(
            try await journeys.transition(appID: app.id, name: name, event: event, actor: actor, now: Date()), name: name)
        return JourneyResponse(saved, bundleID: app.bundleID)
    }

    // MARK: Helpers

    private func app(_ context: HeraldRequestContext) async throws -> App {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let bundleID = try context.parameters.require("bundleID")
        try principal.requireScope(bundleID: bundleID)
        return try await directory.require(bundleID: bundleID)
    }

    /// The saved journey, or the problem the save came to.
    static func saved(_ save: JourneySave, name: String) throws -> Journey {
        switch save {
        case .saved(let journey): return journey
        case .nameTaken:
            throw Problem(
                status: .conflict, slug: "journey-name-taken", title: "The name is taken",
                detail: "this app has a journey named \(name)", field: "name")
        case .unknown: throw unknownJourney()
        case .invalid(let error): throw Problem.invalidField("journey.\(error.field)", error.reason)
        case .notNow(let state):
            throw Problem.invalidTransition("not allowed while the journey is \(state.rawValue)")
        }
    }

    /// The graph as given, checked on its own; its problems are named below `journey.`.
    static func definition(_ value: PayloadValue?) throws -> PayloadValue {
        guard let value, value != .null else { throw Problem.invalidField("journey", "is required") }
        do {
            _ = try JourneyDefinition(json: value)
        } catch {
            throw Problem.invalidField(error.field == "journey" ? "journey" : "journey.\(error.field)", error.reason)
        }
        return value
    }

    static func version(_ request: Request) throws -> Int? {
        try RequestDecoding.query(VersionQuery.self, of: request).checked
    }

    static func name(_ context: HeraldRequestContext) throws -> String {
        let raw = try context.parameters.require("name")
        let name = raw.removingPercentEncoding ?? raw
        if let problem = Journey.nameProblem(name) { throw Problem.invalidField("name", problem) }
        return name
    }

    static func checked(description text: String?) throws -> String? {
        guard let text else { return nil }
        guard TextRules.storedLength(text) <= Journey.maximumDescriptionLength,
            TextRules.forbiddenCharacter(in: text.replacingOccurrences(of: "\n", with: " ")) == nil
        else {
            throw Problem.invalidField(
                "description", "at most \(Journey.maximumDescriptionLength) characters, no control characters but new lines")
        }
        return text
    }

    static func unknownJourney() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-journey", title: "Unknown journey",
            detail: "this app has no journey of this name (or version)", field: "name")
    }
}
