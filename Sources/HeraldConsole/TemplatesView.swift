import Foundation
import HeraldCore

/// The template pages: pure functions of their models.
enum TemplatesView {
    struct Model {
        var name: String
        /// Every version's metadata, newest first.
        var versions: [TemplateVersionMetadata]
        /// The two versions compared, and the one previewed.
        var from: TemplateVersionRecord
        var to: TemplateVersionRecord
        var shown: TemplateVersionRecord
        /// The preview's inputs as typed.
        var languages: String
        var variablesText: String
        var attributesText: String
        var localization: Campaign.LocalizationMode
        var preview: HTML
    }

    static func renderList(_ templates: [TemplateSummary]) -> HTML {
        let rows = templates.html { template in
            """
            <tr><td><a href="\("/console/templates/\(template.name)" as ConsolePath)">\(template.name)</a></td><td class="num">\(template.latestVersion)</td>
            <td>\(template.languages.joined(separator: ", "))</td><td class="hide-narrow">\(ConsoleFormat.time(template.updatedAt))</td></tr>
            """
        }
        return """
            <h1>Templates</h1>
            <p class="hint">Templates are saved with <code>herald templates sync</code> or the API; each change is a new, immutable version.</p>
            <div class="scroll"><table id="templates"><thead><tr><th>Name</th><th class="num">Latest</th><th>Languages</th>
            <th class="hide-narrow">Updated</th></tr></thead>
            <tbody>\(templates.isEmpty ? "<tr><td colspan=\"4\" class=\"muted\">No templates yet.</td></tr>" as HTML : rows)</tbody></table></div>
            """
    }

    static func render(_ model: Model) -> HTML {
        let (name, versions, from, to, shown) = (model.name, model.versions, model.from, model.to, model.shown)
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
        let diff = LineDiff.diff(lines(from), lines(to)).html { line in
            switch line {
            case .same(let text): "<span class=\"same\"> \(text)\n</span>"
            case .removed(let text): "<del>-\(text)\n</del>"
            case .added(let text): "<ins>+\(text)\n</ins>"
            }
        }
        return """
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
            <div><label for="p-languages">Languages</label><input type="text" id="p-languages" name="languages" value="\(model.languages)"></div>
            <div><label for="p-variables">Variables (JSON)</label><input type="text" id="p-variables" name="variables" value="\(model.variablesText)" placeholder="{\"percentOff\": 30}"></div>
            <div><label for="p-attributes">Attributes (JSON)</label><input type="text" id="p-attributes" name="attributes" value="\(model.attributesText)" placeholder="{\"firstName\": \"Mia\"}"></div>
            <div><label for="p-mode">Mode for quiet devices</label><select id="p-mode" name="mode"><option value="server">server-side text</option><option value="client"\(model.localization == .client ? " selected" as HTML : .empty)>loc-key</option></select></div>
            <button type="submit" class="secondary">Preview</button></form>
            \(model.preview)
            """
    }

    /// The stored document, pretty-printed with sorted keys, one line per line of the diff.
    static func lines(_ record: TemplateVersionRecord) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(record.document)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return [String(decoding: record.document, as: UTF8.self)] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
