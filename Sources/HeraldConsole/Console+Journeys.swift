import APNSCore
import Foundation
import HeraldCore
import Hummingbird
import NIOCore

extension Console {
    /// An app's journeys, and an editor for a new one (docs/journeys.md).
    func journeysPage(_ request: Request, values: FormData = FormData(), problem: ValidationError? = nil) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try journeyRepository()
        let apps = try await dependencies.apps.list()
        let query = try FormData(query: request.uri.query)
        let bundleID = values["app"] ?? query["app"] ?? apps.first?.bundleID ?? ""
        var journeys: [Journey] = []
        if let app = apps.first(where: { $0.bundleID == bundleID }) { journeys = try await repository.journeys(appID: app.id) }
        let model = JourneysView.ListModel(
            apps: apps, bundleID: bundleID, journeys: journeys, values: values, problem: problem, canEdit: session.user.role >= .marketing)
        let body = JourneysView.renderList(model, session: session)
        return ConsolePage.render(title: "Journeys", session: session, section: .journeys, body: body)
    }

    /// One journey: its state and steering, the goal against the holdout, the drawing of its
    /// graph with each step's counters, and a new version.
    func journeyPage(
        _ request: Request, bundleID: String, name: String, problem: ValidationError? = nil, values: FormData? = nil
    ) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try journeyRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            let journey = try await repository.journey(appID: app.id, name: name, version: nil)
        else { throw ConsoleError.notFound("No such journey.") }
        let report = try await repository.report(journeyID: journey.id, version: nil)
        let model = JourneysView.Model(
            app: app, journey: journey, report: report, values: values, problem: problem, canEdit: session.user.role >= .marketing)
        let body = JourneysView.render(model, session: session)
        return ConsolePage.render(title: journey.name, session: session, section: .journeys, body: body)
    }

    func journeyCreate(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try journeyRepository()
        guard let app = try await dependencies.apps.find(bundleID: form["app"] ?? "") else {
            return try await journeysPage(request, values: form, problem: ValidationError(field: "app", reason: "choose an app"))
        }
        let name = form.raw("name")
        if let problem = Journey.nameProblem(name) {
            return try await journeysPage(request, values: form, problem: ValidationError(field: "name", reason: problem))
        }
        do {
            let definition = try Self.parseJourney(form.raw("journey"))
            switch try await repository.create(
                appID: app.id, name: name, description: form["description"], definition: definition, actor: session.user.actor)
            {
            case .saved(let saved): return Response.redirect(to: JourneysView.journeyPath(app.bundleID, saved.name), type: .found)
            case .nameTaken:
                return try await journeysPage(
                    request, values: form, problem: ValidationError(field: "name", reason: "this app already has a journey named \(name)"))
            case .invalid(let error): return try await journeysPage(request, values: form, problem: error)
            case .unknown, .notNow: throw ConsoleError.notFound("No such journey.")
            }
        } catch let error as ValidationError {
            return try await journeysPage(request, values: form, problem: error)
        }
    }

    func journeyUpdate(_ request: Request, bundleID: String, name: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try journeyRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID) else { throw ConsoleError.notFound("No such journey.") }
        do {
            let definition = try Self.parseJourney(form.raw("journey"))
            switch try await repository.update(
                appID: app.id, name: name, definition: definition, description: .some(form["description"]), actor: session.user.actor)
            {
            case .saved: return Response.redirect(to: JourneysView.journeyPath(bundleID, name), type: .found)
            case .invalid(let error): return try await journeyPage(request, bundleID: bundleID, name: name, problem: error, values: form)
            case .notNow(let state):
                return try await journeyPage(
                    request, bundleID: bundleID, name: name,
                    problem: ValidationError(field: "state", reason: "not allowed while the journey is \(state.rawValue)"), values: form)
            case .unknown, .nameTaken: throw ConsoleError.notFound("No such journey.")
            }
        } catch let error as ValidationError {
            return try await journeyPage(request, bundleID: bundleID, name: name, problem: error, values: form)
        }
    }

    func journeySteer(_ request: Request, bundleID: String, name: String, event: String) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let repository = try journeyRepository()
        guard let event = Journey.Event(rawValue: event), let app = try await dependencies.apps.find(bundleID: bundleID) else {
            throw ConsoleError.notFound("No such journey.")
        }
        switch try await repository.transition(appID: app.id, name: name, event: event, actor: session.user.actor, now: Date()) {
        case .saved: return Response.redirect(to: JourneysView.journeyPath(bundleID, name), type: .found)
        case .invalid(let error): return try await journeyPage(request, bundleID: bundleID, name: name, problem: error)
        case .notNow(let state):
            return try await journeyPage(
                request, bundleID: bundleID, name: name,
                problem: ValidationError(field: "state", reason: "not allowed while the journey is \(state.rawValue)"))
        case .unknown, .nameTaken: throw ConsoleError.notFound("No such journey.")
        }
    }

    /// The editor's check: JSON `{"problem"}` naming the step, or `{"summary", "drawing"}`.
    func journeyValidate(_ request: Request) async throws -> Response {
        let (_, form) = try await auth.requireScript(request, role: .viewer)
        var answer: [String: PayloadValue]
        do {
            let graph = try JourneyDefinition(json: try Self.parseJourney(form.raw("journey")))
            // What the app lacks is checked as a save would, so the answer never contradicts one.
            if let app = try await dependencies.apps.find(bundleID: form["app"] ?? ""),
                let problem = try await journeyRepository().referenceProblem(appID: app.id, graph: graph)
            {
                throw problem
            }
            answer = [
                "summary": .string("The graph could run: \(graph.steps.count) steps."),
                "drawing": .string(JourneyDrawing(graph: graph, report: nil).svg().text),
            ]
        } catch let error as ValidationError {
            answer = ["problem": .string(JourneysView.describe(error)), "field": .string(error.field)]
        }
        var headers = ConsolePage.headers(contentType: "application/json")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleFormat.json(.object(answer)))))
    }

    static func parseJourney(_ text: String) throws -> PayloadValue {
        guard let value = try? JSONReader.parse(text.utf8) else {
            throw ValidationError(field: "journey", reason: "must be JSON: {\"entry\": …, \"start\": …, \"steps\": {…}}")
        }
        _ = try JourneyDefinition(json: value)
        return value
    }

    private func journeyRepository() throws -> any JourneyRepository {
        guard let repository = dependencies.journeys else { throw ConsoleError.notFound("No such journey.") }
        return repository
    }
}
