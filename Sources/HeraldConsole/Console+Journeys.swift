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
        var rows: HTML = .empty
        if let app = apps.first(where: { $0.bundleID == bundleID }) {
            rows = try await repository.journeys(appID: app.id).html { journey in
                """
                <tr><td><a href="\(Self.journeyPath(app.bundleID, journey.name))">\(journey.name)</a></td>
                <td><span class="badge state-\(journey.state.rawValue)">\(journey.state.rawValue)</span></td>
                <td class="num">\(String(journey.version))</td><td class="num">\(journey.liveVersion.map(String.init) ?? "–")</td>
                <td>\(journey.description ?? "")</td><td>\(ConsoleFormat.time(journey.updatedAt))</td></tr>
                """
            }
        }
        let appOptions = apps.html { app in
            "<option\(app.bundleID == bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let table: HTML =
            rows.text.isEmpty
            ? "<p class=\"muted\" id=\"no-journeys\">No journey for this app yet.</p>"
            : """
            <table id="journeys"><thead><tr><th>Name</th><th>State</th><th class="num">Version</th><th class="num">Live</th><th>Description</th><th>Updated</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        let form: HTML =
            session.user.role >= .marketing
            ? """
            <h2>New journey</h2>
            <form method="post" action="/console/journeys" class="journey-form">\(ConsolePage.csrfField(session))
            <input type="hidden" name="app" value="\(bundleID)">
            <div class="grid2">
            <div class="field"><label for="journey-name">Name</label><input type="text" id="journey-name" name="name" value="\(values.raw("name"))" required></div>
            <div class="field"><label for="journey-description">Description</label><input type="text" id="journey-description" name="description" value="\(values.raw("description"))"></div>
            </div>
            \(Self.journeyEditor(bundleID: bundleID, json: values.raw("journey").isEmpty ? Self.journeyExample : values.raw("journey"), problem: problem))
            <button type="submit">Save draft</button></form>
            """
            : .empty
        let body: HTML = """
            <h1>Journeys</h1>
            <form class="filters" method="get" action="/console/journeys">
            <div><label for="journeys-app">App</label><select id="journeys-app" name="app">\(appOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            \(form)
            """
        return ConsolePage.render(title: "Journeys", session: session, section: .journeys, body: body)
    }

    /// The JSON editor, the check's answer (a problem names its step) and the drawing it makes.
    static func journeyEditor(bundleID: String, json: String, problem: ValidationError?) -> HTML {
        let check: HTML =
            problem.map { "<div id=\"journey-check\" class=\"notice error\" aria-live=\"polite\">\(Self.describe($0))</div>" }
            ?? "<div id=\"journey-check\" class=\"notice\" aria-live=\"polite\">The graph is checked as you type.</div>"
        return """
            <div class="field"><label for="journey-json">Graph</label>
            <textarea id="journey-json" name="journey" rows="18" class="code" required data-app="\(bundleID)" data-validate-url="/console/journeys/validate">\(json)</textarea>
            <p class="hint">The journey's JSON: entry, start, steps, goal, holdoutPercent (docs/journeys.md).</p></div>
            \(check)
            <div id="journey-preview" class="journey-preview"></div>
            """
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
        let path = Self.journeyPath(app.bundleID, journey.name)
        let drawing: HTML =
            (try? JourneyDefinition(json: journey.definition)).map {
                JourneyDrawing(graph: $0, report: report).svg()
            } ?? "<p class=\"error\">The graph does not read.</p>"
        var steering: HTML = .empty
        if session.user.role >= .marketing {
            for event in Journey.Event.allCases where event.target(from: journey.state) != nil {
                steering += ConsolePage.button(
                    event.rawValue.capitalized, action: "\(path)/\(event.rawValue)", session: session,
                    style: event == .archive ? "danger" : (event == .pause ? "secondary" : ""),
                    confirm: event == .archive ? "Archive \(journey.name)? Everyone still inside leaves." : nil)
            }
        }
        let edit: HTML =
            session.user.role >= .marketing && journey.state != .archived
            ? """
            <h2>New version</h2>
            <form method="post" action="\(path)" class="journey-form">\(ConsolePage.csrfField(session))
            <div class="field"><label for="journey-description">Description</label><input type="text" id="journey-description" name="description" value="\(values?.raw("description") ?? journey.description ?? "")"></div>
            \(Self.journeyEditor(bundleID: app.bundleID, json: values?.raw("journey") ?? Self.text(journey.definition, pretty: true), problem: problem))
            <button type="submit">Save version \(String(journey.version + 1))</button></form>
            """
            : .empty
        let rows = report.steps.html { step in
            let sends = step.kind == "send"
            return """
                <tr><td>\(step.id)</td><td>\(step.kind)</td><td class="num">\(ConsoleFormat.count(step.entered))</td>
                <td class="num">\(ConsoleFormat.count(step.waiting))</td>
                <td>\(step.paths.sorted { $0.key < $1.key }.map { "\($0.key) \(ConsoleFormat.count($0.value))" }.joined(separator: " · "))</td>
                <td class="num">\(sends ? ConsoleFormat.count(step.deliveries["accepted"] ?? 0) : "")</td>
                <td class="num">\(sends ? ConsoleFormat.count(step.opened) : "")</td>
                <td class="num">\(sends ? ConsoleFormat.count(step.converted) : "")</td>
                <td>\(step.notSent.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " · "))</td></tr>
                """
        }
        let body: HTML = """
            <p><a href="\("/console/journeys?app=\(query: app.bundleID)" as ConsolePath)">Journeys</a> · \(app.bundleID)</p>
            <h1>\(journey.name) <span class="badge state-\(journey.state.rawValue)" id="journey-state">\(journey.state.rawValue)</span>
            <span class="muted">version \(String(journey.version))\(journey.liveVersion.map { ", new entrants take \($0)" } ?? "")</span></h1>
            \(journey.description.map { "<p>\($0)</p>" as HTML } ?? .empty)
            <div class="actions">\(steering)</div>
            <p class="notice" id="journey-goal">\(Self.goalLine(report))</p>
            <div class="journey-drawing">\(drawing)</div>
            <h2>Steps</h2>
            <table id="journey-steps"><thead><tr><th>Step</th><th>Kind</th><th class="num">Entered</th><th class="num">Waiting</th><th>Went on</th><th class="num">Sent</th><th class="num">Opened</th><th class="num">Converted</th><th>Nothing sent</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            \(edit)
            """
        return ConsolePage.render(title: journey.name, session: session, section: .journeys, body: body)
    }

    static func goalLine(_ report: JourneyReport) -> HTML {
        func rate(_ count: Int, _ total: Int) -> String {
            total > 0 ? String(format: "%.1f %%", 100 * Double(count) / Double(total)) : "–"
        }
        var line: HTML = """
            <b>\(ConsoleFormat.count(report.entrants))</b> entrants (\(ConsoleFormat.count(report.inside)) inside now) reached the goal at <b>\(rate(report.goals, report.entrants))</b>
            """
        if report.heldOut > 0 {
            line += " against \(rate(report.heldOutGoals, report.heldOut)) of \(ConsoleFormat.count(report.heldOut)) held out"
            if let test = ProportionComparison(
                Proportion(count: report.goals, total: report.entrants), Proportion(count: report.heldOutGoals, total: report.heldOut))
            {
                line += test.significant ? " (more than chance, p = \(String(format: "%.3f", test.pValue)))" : " (not more than chance yet)"
            }
        }
        return line + "."
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
            case .saved(let saved): return Response.redirect(to: Self.journeyPath(app.bundleID, saved.name), type: .found)
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
            case .saved: return Response.redirect(to: Self.journeyPath(bundleID, name), type: .found)
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
        case .saved: return Response.redirect(to: Self.journeyPath(bundleID, name), type: .found)
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
            answer = ["problem": .string(Self.describe(error)), "field": .string(error.field)]
        }
        var headers = ConsolePage.headers(contentType: "application/json")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: Self.text(.object(answer)))))
    }

    /// A problem said at its step: `Step remind: send.template names no template …`.
    static func describe(_ error: ValidationError) -> String {
        let parts = error.field.split(separator: ".", maxSplits: 2).map(String.init)
        if parts.count >= 2, parts[0] == "steps" {
            let rest = parts.count == 3 ? "\(parts[2]) " : ""
            return "Step \(parts[1]): \(rest)\(error.reason)"
        }
        return "\(error.field): \(error.reason)"
    }

    static func parseJourney(_ text: String) throws -> PayloadValue {
        guard let value = try? JSONReader.parse(text.utf8) else {
            throw ValidationError(field: "journey", reason: "must be JSON: {\"entry\": …, \"start\": …, \"steps\": {…}}")
        }
        _ = try JourneyDefinition(json: value)
        return value
    }

    static func journeyPath(_ bundleID: String, _ name: String) -> ConsolePath {
        "/console/journeys/\(bundleID)/\(name)"
    }

    /// A journey the editor starts from: the cart reminder of docs/journeys.md.
    static let journeyExample = """
        {"entry": {"event": {"name": "cart_abandoned"}, "reentryAfterMinutes": 1440},
         "start": "wait",
         "steps": {
           "wait": {"wait": {"minutes": 60}, "next": "remind"},
           "remind": {"send": {"template": "cart-reminder"}, "next": "opened"},
           "opened": {"waitFor": {"opened": true}, "timeoutMinutes": 1440, "next": "done", "timeoutNext": "done"},
           "done": {"exit": {}}
         },
         "goal": {"event": {"name": "purchase"}}}
        """

    private func journeyRepository() throws -> any JourneyRepository {
        guard let repository = dependencies.journeys else { throw ConsoleError.notFound("No such journey.") }
        return repository
    }
}
