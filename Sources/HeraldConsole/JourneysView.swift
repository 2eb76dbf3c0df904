import APNSCore
import Foundation
import HeraldCore

/// The journey pages: pure functions of their models.
enum JourneysView {
    struct ListModel {
        var apps: [App]
        var bundleID: String
        var journeys: [Journey]
        /// The new-journey form as sent, shown again after a refusal, with why.
        var values: FormData
        var problem: ValidationError?
        /// Marketing and admins may save and steer journeys.
        var canEdit: Bool
    }

    struct Model {
        var app: App
        var journey: Journey
        var report: JourneyReport
        /// The new-version form as sent, shown again after a refusal, with why.
        var values: FormData?
        var problem: ValidationError?
        var canEdit: Bool
    }

    static func renderList(_ model: ListModel, session: ConsoleSession) -> HTML {
        let (bundleID, values) = (model.bundleID, model.values)
        let rows = model.journeys.html { journey in
            """
            <tr><td><a href="\(journeyPath(bundleID, journey.name))">\(journey.name)</a></td>
            <td><span class="badge state-\(journey.state.rawValue)">\(journey.state.rawValue)</span></td>
            <td class="num">\(String(journey.version))</td><td class="num">\(journey.liveVersion.map(String.init) ?? "–")</td>
            <td>\(journey.description ?? "")</td><td>\(ConsoleFormat.time(journey.updatedAt))</td></tr>
            """
        }
        let appOptions = ConsolePage.appOptions(model.apps, selected: bundleID)
        let table: HTML =
            model.journeys.isEmpty
            ? "<p class=\"muted\" id=\"no-journeys\">No journey for this app yet.</p>"
            : """
            <table id="journeys"><thead><tr><th>Name</th><th>State</th><th class="num">Version</th><th class="num">Live</th><th>Description</th><th>Updated</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        let form: HTML =
            model.canEdit
            ? """
            <h2>New journey</h2>
            <form method="post" action="/console/journeys" class="journey-form">\(ConsolePage.csrfField(session))
            <input type="hidden" name="app" value="\(bundleID)">
            <div class="grid2">
            <div class="field"><label for="journey-name">Name</label><input type="text" id="journey-name" name="name" value="\(values.raw("name"))" required></div>
            <div class="field"><label for="journey-description">Description</label><input type="text" id="journey-description" name="description" value="\(values.raw("description"))"></div>
            </div>
            \(journeyEditor(bundleID: bundleID, json: values.raw("journey").isEmpty ? journeyExample : values.raw("journey"), problem: model.problem))
            <button type="submit">Save draft</button></form>
            """
            : .empty
        return """
            <h1>Journeys</h1>
            <form class="filters" method="get" action="/console/journeys">
            <div><label for="journeys-app">App</label><select id="journeys-app" name="app">\(appOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            \(form)
            """
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let (app, journey, report, values) = (model.app, model.journey, model.report, model.values)
        let path = journeyPath(app.bundleID, journey.name)
        let drawing: HTML =
            (try? JourneyDefinition(json: journey.definition)).map {
                JourneyDrawing(graph: $0, report: report).svg()
            } ?? "<p class=\"error\">The graph does not read.</p>"
        var steering: HTML = .empty
        if model.canEdit {
            for event in Journey.Event.allCases where event.target(from: journey.state) != nil {
                steering += ConsolePage.button(
                    event.rawValue.capitalized, action: "\(path)/\(event.rawValue)", session: session,
                    style: event == .archive ? "danger" : (event == .pause ? "secondary" : ""),
                    confirm: event == .archive ? "Archive \(journey.name)? Everyone still inside leaves." : nil)
            }
        }
        let edit: HTML =
            model.canEdit && journey.state != .archived
            ? """
            <h2>New version</h2>
            <form method="post" action="\(path)" class="journey-form">\(ConsolePage.csrfField(session))
            <div class="field"><label for="journey-description">Description</label><input type="text" id="journey-description" name="description" value="\(values?.raw("description") ?? journey.description ?? "")"></div>
            \(journeyEditor(bundleID: app.bundleID, json: values?.raw("journey") ?? ConsoleFormat.json(journey.definition, pretty: true), problem: model.problem))
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
        return """
            <p><a href="\("/console/journeys?app=\(query: app.bundleID)" as ConsolePath)">Journeys</a> · \(app.bundleID)</p>
            <h1>\(journey.name) <span class="badge state-\(journey.state.rawValue)" id="journey-state">\(journey.state.rawValue)</span>
            <span class="muted">version \(String(journey.version))\(journey.liveVersion.map { ", new entrants take \($0)" } ?? "")</span></h1>
            \(journey.description.map { "<p>\($0)</p>" as HTML } ?? .empty)
            <div class="actions">\(steering)</div>
            <p class="notice" id="journey-goal">\(goalLine(report))</p>
            <div class="journey-drawing">\(drawing)</div>
            <h2>Steps</h2>
            <table id="journey-steps"><thead><tr><th>Step</th><th>Kind</th><th class="num">Entered</th><th class="num">Waiting</th><th>Went on</th><th class="num">Sent</th><th class="num">Opened</th><th class="num">Converted</th><th>Nothing sent</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            \(edit)
            """
    }

    /// The JSON editor, the check's answer (a problem names its step) and the drawing it makes.
    static func journeyEditor(bundleID: String, json: String, problem: ValidationError?) -> HTML {
        let check: HTML =
            problem.map { "<div id=\"journey-check\" class=\"notice error\" aria-live=\"polite\">\(describe($0))</div>" }
            ?? "<div id=\"journey-check\" class=\"notice\" aria-live=\"polite\">The graph is checked as you type.</div>"
        return """
            <div class="field"><label for="journey-json">Graph</label>
            <textarea id="journey-json" name="journey" rows="18" class="code" required data-app="\(bundleID)" data-validate-url="/console/journeys/validate">\(json)</textarea>
            <p class="hint">The journey's JSON: entry, start, steps, goal, holdoutPercent (docs/journeys.md).</p></div>
            \(check)
            <div id="journey-preview" class="journey-preview"></div>
            """
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

    /// A problem said at its step: `Step remind: send.template names no template …`.
    static func describe(_ error: ValidationError) -> String {
        let parts = error.field.split(separator: ".", maxSplits: 2).map(String.init)
        if parts.count >= 2, parts[0] == "steps" {
            let rest = parts.count == 3 ? "\(parts[2]) " : ""
            return "Step \(parts[1]): \(rest)\(error.reason)"
        }
        return "\(error.field): \(error.reason)"
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
}
