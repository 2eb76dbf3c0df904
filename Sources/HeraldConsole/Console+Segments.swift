import APNSCore
import Foundation
import HeraldCore
import Hummingbird
import NIOCore

extension Console {
    /// An app's saved segments, and a builder for a new one with its live count and a sample
    /// (docs/segments.md).
    func segmentsPage(_ request: Request, values: FormData = FormData(), problem: String? = nil) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try segmentRepository()
        let apps = try await dependencies.apps.list()
        let query = try FormData(query: request.uri.query)
        let bundleID = values["app"] ?? query["app"] ?? apps.first?.bundleID ?? ""
        var rows: HTML = .empty
        if let app = apps.first(where: { $0.bundleID == bundleID }) {
            rows = try await repository.segments(appID: app.id).html { segment in
                """
                <tr><td><a href="\("/console/segments/\(app.bundleID)/\(segment.name)" as ConsolePath)">\(segment.name)</a></td>
                <td class="num">\(String(segment.version))</td><td>\(segment.description ?? "")</td>
                <td>\(ConsoleFormat.time(segment.updatedAt))</td></tr>
                """
            }
        }
        let appOptions = apps.html { app in
            "<option\(app.bundleID == bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let table: HTML =
            rows.text.isEmpty
            ? "<p class=\"muted\" id=\"no-segments\">No saved segment for this app yet.</p>"
            : """
            <table id="segments"><thead><tr><th>Name</th><th class="num">Version</th><th>Description</th><th>Updated</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        let form: HTML =
            session.user.role >= .marketing
            ? """
            <h2>New segment</h2>
            \(problem.map { "<p class=\"error\" id=\"segment-problem\">\($0)</p>" as HTML } ?? .empty)
            <form method="post" action="/console/segments" class="segment-form">\(ConsolePage.csrfField(session))
            <input type="hidden" name="app" value="\(bundleID)">
            <div class="grid2">
            <div class="field"><label for="segment-name">Name</label><input type="text" id="segment-name" name="name" value="\(values.raw("name"))" required></div>
            <div class="field"><label for="segment-description">Description</label><input type="text" id="segment-description" name="description" value="\(values.raw("description"))"></div>
            </div>
            \(Self.segmentEditor(bundleID: bundleID, json: values.raw("segment")))
            <button type="submit">Save segment</button></form>
            """
            : .empty
        let body: HTML = """
            <h1>Segments</h1>
            <form class="filters" method="get" action="/console/segments">
            <div><label for="segments-app">App</label><select id="segments-app" name="app">\(appOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            \(form)
            """
        return ConsolePage.render(title: "Segments", session: session, section: .segments, body: body)
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

    /// One segment: its conditions, how many devices match now, a sample, and (for marketing)
    /// a new version or archiving.
    func segmentPage(
        _ request: Request, bundleID: String, name: String, problem: String? = nil, values: FormData? = nil
    )
        async throws -> Response
    {
        let session = try await auth.require(request, role: .viewer)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            let saved = try await repository.segment(appID: app.id, name: name, version: nil)
        else { throw ConsoleError.notFound("No such segment.") }
        let (count, sample) = try await repository.evaluate(appID: app.id, segment: saved.segment, sample: 10, now: Date())
        let path: ConsolePath = "/console/segments/\(app.bundleID)/\(saved.name)"
        let json = values?.raw("segment") ?? Self.text(saved.segment.json)
        let edit: HTML =
            session.user.role >= .marketing
            ? """
            <h2>New version</h2>
            \(problem.map { "<p class=\"error\" id=\"segment-problem\">\($0)</p>" as HTML } ?? .empty)
            <form method="post" action="\(path)" class="segment-form">\(ConsolePage.csrfField(session))
            <div class="field"><label for="segment-description">Description</label><input type="text" id="segment-description" name="description" value="\(values?.raw("description") ?? saved.description ?? "")"></div>
            \(Self.segmentEditor(bundleID: app.bundleID, json: json))
            <button type="submit">Save version \(String(saved.version + 1))</button></form>
            \(ConsolePage.button("Archive segment", action: "\(path)/archive", session: session, style: "danger", confirm: "Archive \(saved.name)? Campaigns already scheduled keep their copy."))
            """
            : .empty
        let body: HTML = """
            <p><a href="\("/console/segments?app=\(query: app.bundleID)" as ConsolePath)">Segments</a> · \(app.bundleID)</p>
            <h1>\(saved.name) <span class="muted">version \(String(saved.version))</span></h1>
            \(saved.description.map { "<p>\($0)</p>" as HTML } ?? .empty)
            <p class="notice" id="segment-live-count"><b>\(ConsoleFormat.count(count))</b> devices match now.</p>
            <pre id="segment-definition">\(Self.text(saved.segment.json, pretty: true))</pre>
            <h2>A sample</h2>
            \(Self.sampleTable(sample))
            \(edit)
            """
        return ConsolePage.render(title: saved.name, session: session, section: .segments, body: body)
    }

    /// Saves a new segment.
    func segmentCreate(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: form["app"] ?? "") else {
            return try await segmentsPage(request, values: form, problem: "Choose an app.")
        }
        let name = form.raw("name")
        if let problem = SavedSegment.nameProblem(name) { return try await segmentsPage(request, values: form, problem: "name: \(problem)") }
        let segment: Segment
        do {
            segment = try Self.parseSegment(form.raw("segment"))
        } catch let error as ValidationError {
            return try await segmentsPage(request, values: form, problem: "\(error.field): \(error.reason)")
        }
        switch try await repository.create(
            appID: app.id, name: name, description: form["description"], segment: segment, actor: session.user.actor)
        {
        case .saved(let saved):
            return Response.redirect(to: "/console/segments/\(app.bundleID)/\(saved.name)" as ConsolePath, type: .found)
        case .nameTaken:
            return try await segmentsPage(request, values: form, problem: "name: this app already has a segment named \(name)")
        case .unknown:
            throw ConsoleError.notFound("No such segment.")
        }
    }

    /// Saves the next version of a segment (and its description).
    func segmentUpdate(_ request: Request, bundleID: String, name: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID) else { throw ConsoleError.notFound("No such segment.") }
        let segment: Segment
        do {
            segment = try Self.parseSegment(form.raw("segment"))
        } catch let error as ValidationError {
            return try await segmentPage(request, bundleID: bundleID, name: name, problem: "\(error.field): \(error.reason)", values: form)
        }
        guard
            case .saved = try await repository.update(
                appID: app.id, name: name, segment: segment, description: .some(form["description"]), actor: session.user.actor)
        else { throw ConsoleError.notFound("No such segment.") }
        return Response.redirect(to: "/console/segments/\(bundleID)/\(name)" as ConsolePath, type: .found)
    }

    func segmentArchive(_ request: Request, bundleID: String, name: String) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            try await repository.archive(appID: app.id, name: name, actor: session.user.actor)
        else { throw ConsoleError.notFound("No such segment.") }
        return Response.redirect(to: "/console/segments?app=\(query: bundleID)" as ConsolePath, type: .found)
    }

    /// The builder's live count: JSON `{"count", "sample"}` or `{"problem"}`.
    func segmentEvaluate(_ request: Request) async throws -> Response {
        let (_, form) = try await auth.requireScript(request, role: .viewer)
        let repository = try segmentRepository()
        var answer: [String: PayloadValue]
        if let app = try await dependencies.apps.find(bundleID: form["app"] ?? "") {
            do {
                let segment = try Self.parseSegment(form.raw("segment"))
                let (count, sample) = try await repository.evaluate(appID: app.id, segment: segment, sample: 5, now: Date())
                answer = [
                    "count": .int(count), "text": .string(ConsoleFormat.count(count)),
                    "sample": .string(Self.sampleTable(sample).text),
                ]
            } catch let error as ValidationError {
                answer = ["problem": .string("\(error.field): \(error.reason)")]
            }
        } else {
            answer = ["problem": .string("Choose an app.")]
        }
        var headers = ConsolePage.headers(contentType: "application/json")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: Self.text(.object(answer)))))
    }

    /// The app and segment name of a page's path, percent-decoded.
    static func segmentPath(_ parameters: Parameters) throws -> (String, String) {
        let app = try parameters.require("app")
        let name = try parameters.require("name")
        return (app.removingPercentEncoding ?? app, name.removingPercentEncoding ?? name)
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

    static func parseSegment(_ text: String) throws -> Segment {
        guard let value = try? JSONReader.parse(text.utf8) else {
            throw ValidationError(field: "segment", reason: "must be JSON, e.g. {\"language\": \"de\"}")
        }
        return try Segment(json: value)
    }

    static func text(_ value: PayloadValue, pretty: Bool = false) -> String {
        (try? CanonicalJSON.text(value, pretty: pretty)) ?? "{}"
    }

    private func segmentRepository() throws -> any SegmentRepository {
        guard let repository = dependencies.segments else { throw ConsoleError.notFound("No such segment.") }
        return repository
    }
}
