import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    func templatesPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let templates = try await dependencies.templates.list()
        let rows = templates.html { template in
            """
            <tr><td><a href="\("/console/templates/\(template.name)" as ConsolePath)">\(template.name)</a></td><td class="num">\(template.latestVersion)</td>
            <td>\(template.languages.joined(separator: ", "))</td><td class="hide-narrow">\(ConsoleFormat.time(template.updatedAt))</td></tr>
            """
        }
        let body: HTML = """
            <h1>Templates</h1>
            <p class="hint">Templates are saved with <code>herald templates sync</code> or the API; each change is a new, immutable version.</p>
            <div class="scroll"><table id="templates"><thead><tr><th>Name</th><th class="num">Latest</th><th>Languages</th>
            <th class="hide-narrow">Updated</th></tr></thead>
            <tbody>\(templates.isEmpty ? "<tr><td colspan=\"4\" class=\"muted\">No templates yet.</td></tr>" as HTML : rows)</tbody></table></div>
            """
        return ConsolePage.render(title: "Templates", session: session, section: .templates, body: body)
    }

    /// A template's versions, a diff between two of them, and a preview of one for chosen
    /// languages and variables.
    func templatePage(_ request: Request, name: String) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        // Every version's metadata, and the documents of the (at most three) versions shown.
        let versions = try await dependencies.templates.versions(name: name)
        guard let latest = versions.first else { throw ConsoleError.notFound("template") }
        let query = try FormData(query: request.uri.query)
        func version(_ key: String, _ fallback: Int) async throws -> TemplateVersionRecord {
            var number = versions.contains { $0.version == fallback } ? fallback : latest.version
            if let text = query[key] {
                guard let asked = Int(text), versions.contains(where: { $0.version == asked }) else {
                    throw ConsoleError.badRequest("The template has no version \(text).")
                }
                number = asked
            }
            guard let record = try await dependencies.templates.version(name: name, version: number) else {
                throw ConsoleError.notFound("template")
            }
            return record
        }
        let to = try await version("to", latest.version)
        let from = try await version("from", max(1, to.version - 1))
        let shown = try await version("version", latest.version)
        let rows = versions.html { record in
            """
            <tr><td class="num">\(record.version)</td><td>\(record.languages.joined(separator: ", "))</td>
            <td>\(record.createdBy)</td><td class="hide-narrow">\(ConsoleFormat.time(record.createdAt))</td>
            <td class="hide-narrow"><code>\(String(record.contentHash.prefix(12)))</code></td></tr>
            """
        }
        let options = { (chosen: Int) in
            versions.html { "<option value=\"\($0.version)\"\($0.version == chosen ? " selected" as HTML : .empty)>v\($0.version)</option>" }
        }
        let diff = LineDiff.diff(Self.lines(from), Self.lines(to)).html { line in
            switch line {
            case .same(let text): "<span class=\"same\"> \(text)\n</span>"
            case .removed(let text): "<del>-\(text)\n</del>"
            case .added(let text): "<ins>+\(text)\n</ins>"
            }
        }
        let languages = query["languages"] ?? shown.languages.prefix(3).joined(separator: ", ")
        let variablesText = query.raw("variables")
        let attributesText = query.raw("attributes")
        func object(_ text: String, _ what: String) throws -> [String: PayloadValue] {
            guard !text.isEmpty else { return [:] }
            guard let object = ConsoleFormat.jsonObject(text) else { throw ConsoleError.badRequest("\(what) must be a JSON object.") }
            return object
        }
        let variables = try object(variablesText, "Variables")
        let attributes = try object(attributesText, "Attributes")
        let localization: Campaign.LocalizationMode = query["mode"] == "client" ? .client : .server
        let asked = languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let preview = try PayloadPreview(
            record: shown, variables: variables, pushOptions: PushOptions(), localization: localization, attributes: attributes
        ).render(languages: asked)
        let body: HTML = """
            <p class="muted"><a href="/console/templates">Templates</a> ›</p><h1>\(name)</h1>
            <h2>Versions</h2><div class="scroll"><table id="versions"><thead><tr><th class="num">Version</th><th>Languages</th><th>Saved by</th>
            <th class="hide-narrow">Saved</th><th class="hide-narrow">SHA-256</th></tr></thead><tbody>\(rows)</tbody></table></div>
            <h2>Changes</h2>
            <form class="filters" method="get" action="\("/console/templates/\(name)" as ConsolePath)">
            <div><label for="v-from">From</label><select id="v-from" name="from">\(options(from.version))</select></div>
            <div><label for="v-to">To</label><select id="v-to" name="to">\(options(to.version))</select></div>
            <button type="submit" class="secondary">Compare</button></form>
            <pre class="diff" id="diff">\(from.version == to.version ? "Choose two different versions." as HTML : diff)</pre>
            <h2>Preview</h2>
            <form class="filters" method="get" action="\("/console/templates/\(name)" as ConsolePath)">
            <div><label for="p-version">Version</label><select id="p-version" name="version">\(options(shown.version))</select></div>
            <div><label for="p-languages">Languages</label><input type="text" id="p-languages" name="languages" value="\(languages)"></div>
            <div><label for="p-variables">Variables (JSON)</label><input type="text" id="p-variables" name="variables" value="\(variablesText)" placeholder="{\"percentOff\": 30}"></div>
            <div><label for="p-attributes">Attributes (JSON)</label><input type="text" id="p-attributes" name="attributes" value="\(attributesText)" placeholder="{\"firstName\": \"Mia\"}"></div>
            <div><label for="p-mode">Mode for quiet devices</label><select id="p-mode" name="mode"><option value="server">server-side text</option><option value="client"\(localization == .client ? " selected" as HTML : .empty)>loc-key</option></select></div>
            <button type="submit" class="secondary">Preview</button></form>
            \(preview)
            """
        return ConsolePage.render(title: name, session: session, section: .templates, body: body)
    }

    /// The stored document, pretty-printed with sorted keys, one line per line of the diff.
    static func lines(_ record: TemplateVersionRecord) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(record.document)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return [String(decoding: record.document, as: UTF8.self)] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
