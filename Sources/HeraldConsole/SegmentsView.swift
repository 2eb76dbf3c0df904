import APNSCore
import Foundation
import HeraldCore

/// The segment pages: pure functions of their models.
enum SegmentsView {
    struct ListModel {
        var apps: [App]
        var bundleID: String
        var segments: [SavedSegment]
        /// The new-segment form as sent, shown again after a refusal, with why.
        var values: FormData
        var problem: String?
        /// Marketing and admins may save segments.
        var canEdit: Bool
    }

    struct Model {
        var app: App
        var saved: SavedSegment
        /// How many devices match now, and a few of them.
        var count: Int
        var sample: [Device]
        /// The new-version form as sent, shown again after a refusal, with why.
        var values: FormData?
        var problem: String?
        var canEdit: Bool
    }

    static func renderList(_ model: ListModel, session: ConsoleSession) -> HTML {
        let (bundleID, values) = (model.bundleID, model.values)
        let rows = model.segments.html { segment in
            """
            <tr><td><a href="\("/console/segments/\(bundleID)/\(segment.name)" as ConsolePath)">\(segment.name)</a></td>
            <td class="num">\(String(segment.version))</td><td>\(segment.description ?? "")</td>
            <td>\(ConsoleFormat.time(segment.updatedAt))</td></tr>
            """
        }
        let appOptions = ConsolePage.appOptions(model.apps, selected: bundleID)
        let table: HTML =
            model.segments.isEmpty
            ? "<p class=\"muted\" id=\"no-segments\">No saved segment for this app yet.</p>"
            : """
            <table id="segments"><thead><tr><th>Name</th><th class="num">Version</th><th>Description</th><th>Updated</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        let form: HTML =
            model.canEdit
            ? """
            <h2>New segment</h2>
            \(model.problem.map { "<p class=\"error\" id=\"segment-problem\">\($0)</p>" as HTML } ?? .empty)
            <form method="post" action="/console/segments" class="segment-form">\(ConsolePage.csrfField(session))
            <input type="hidden" name="app" value="\(bundleID)">
            <div class="grid2">
            <div class="field"><label for="segment-name">Name</label><input type="text" id="segment-name" name="name" value="\(values.raw("name"))" required></div>
            <div class="field"><label for="segment-description">Description</label><input type="text" id="segment-description" name="description" value="\(values.raw("description"))"></div>
            </div>
            \(segmentEditor(bundleID: bundleID, json: values.raw("segment")))
            <button type="submit">Save segment</button></form>
            """
            : .empty
        return """
            <h1>Segments</h1>
            <form class="filters" method="get" action="/console/segments">
            <div><label for="segments-app">App</label><select id="segments-app" name="app">\(appOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            \(form)
            """
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let (app, saved, values) = (model.app, model.saved, model.values)
        let path: ConsolePath = "/console/segments/\(app.bundleID)/\(saved.name)"
        let json = values?.raw("segment") ?? ConsoleFormat.json(saved.segment.json)
        let edit: HTML =
            model.canEdit
            ? """
            <h2>New version</h2>
            \(model.problem.map { "<p class=\"error\" id=\"segment-problem\">\($0)</p>" as HTML } ?? .empty)
            <form method="post" action="\(path)" class="segment-form">\(ConsolePage.csrfField(session))
            <div class="field"><label for="segment-description">Description</label><input type="text" id="segment-description" name="description" value="\(values?.raw("description") ?? saved.description ?? "")"></div>
            \(segmentEditor(bundleID: app.bundleID, json: json))
            <button type="submit">Save version \(String(saved.version + 1))</button></form>
            \(ConsolePage.button("Archive segment", action: "\(path)/archive", session: session, style: "danger", confirm: "Archive \(saved.name)? Campaigns already scheduled keep their copy."))
            """
            : .empty
        return """
            <p><a href="\("/console/segments?app=\(query: app.bundleID)" as ConsolePath)">Segments</a> · \(app.bundleID)</p>
            <h1>\(saved.name) <span class="muted">version \(String(saved.version))</span></h1>
            \(saved.description.map { "<p>\($0)</p>" as HTML } ?? .empty)
            <p class="notice" id="segment-live-count"><b>\(ConsoleFormat.count(model.count))</b> devices match now.</p>
            <pre id="segment-definition">\(ConsoleFormat.json(saved.segment.json, pretty: true))</pre>
            <h2>A sample</h2>
            \(sampleTable(model.sample))
            \(edit)
            """
    }

    /// The structured builder (the script draws it over the JSON, which it keeps in step), the
    /// JSON itself (what is saved; editable without the script), and the live count.
    static func segmentEditor(bundleID: String, json: String) -> HTML {
        """
        <div class="field"><label>Conditions</label>
        <div id="segment-builder" class="segment-builder" data-evaluate-url="/console/segments/evaluate" data-app="\(bundleID)"></div>
        <textarea id="segment-json" name="segment" rows="6" required placeholder="{&quot;all&quot;: [{&quot;attribute&quot;: &quot;cartValue&quot;, &quot;gt&quot;: 50}, {&quot;not&quot;: {&quot;opened&quot;: {&quot;withinDays&quot;: 30}}}]}">\(json)</textarea>
        <p class="hint">The segment's JSON (docs/segments.md); the builder above writes it.</p></div>
        <div id="segment-count" class="notice" aria-live="polite">Add a condition to see how many devices match.</div>
        <div id="segment-sample"></div>
        """
    }

    static func sampleTable(_ devices: [Device]) -> HTML {
        guard !devices.isEmpty else { return "<p class=\"muted\">No device matches.</p>" }
        let rows = devices.html { device in
            """
            <tr><td><code>…\(String(device.token.hex.suffix(8)))</code></td><td>\(device.environment.rawValue)</td>
            <td>\(device.languages.map(\.value).joined(separator: ", "))</td><td>\(device.timeZone ?? "–")</td>
            <td>\(ConsoleFormat.time(device.registeredAt))</td></tr>
            """
        }
        return """
            <table class="sample"><thead><tr><th>Token</th><th>Environment</th><th>Languages</th><th>Zone</th><th>Registered</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
    }
}
