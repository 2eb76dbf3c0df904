import APNSCore
import Foundation
import HeraldCore

/// The audit log page: a pure function of its model, so it is tested without a request.
enum AuditView {
    struct Model {
        var apps: [String]
        var filter = FormData()
        var entries: [AuditEntry] = []
        var nextCursor: Int64?
        /// Not the first page.
        var paged = false
    }

    static func render(_ model: Model) -> HTML {
        let filter = model.filter
        let appOptions = model.apps.html { app in
            "<option value=\"\(app)\"\(filter["app"] == app ? " selected" as HTML : .empty)>\(app)</option>"
        }
        let rows = model.entries.html { entry in
            """
            <tr><td>\(ConsoleFormat.time(entry.at))</td><td>\(entry.actor)</td><td><code>\(entry.action)</code></td>
            <td>\(entry.bundleID ?? "–")</td><td class="details"><code>\(details(entry.details))</code></td></tr>
            """
        }
        var next = filter
        if let cursor = model.nextCursor { next.set("cursor", String(cursor)) }
        return """
            <h1>Audit log</h1>
            <p class="muted">Every change to apps, credentials, keys, users, templates, campaigns and devices, written in the same transaction as the change.</p>
            <form class="filters" method="get" action="/console/audit">
            <div><label for="f-app">App</label><select id="f-app" name="app"><option value="">All apps</option>\(appOptions)</select></div>
            <div><label for="f-actor">Actor</label><input id="f-actor" name="actor" type="text" value="\(filter["actor"] ?? "")" placeholder="user:ana@example.com"></div>
            <div><label for="f-action">Action</label><input id="f-action" name="action" type="text" value="\(filter["action"] ?? "")" placeholder="campaign.schedule"></div>
            <div><label for="f-since">Since (UTC)</label><input id="f-since" name="since" type="date" value="\(filter["since"] ?? "")"></div>
            <button type="submit" class="secondary">Filter</button>
            </form>
            <div class="scroll"><table id="audit"><thead><tr><th>Time</th><th>Actor</th><th>Action</th><th>App</th><th>Details</th></tr></thead>
            <tbody>\(model.entries.isEmpty ? "<tr><td colspan=\"5\" class=\"muted\">No entries match.</td></tr>" as HTML : rows)</tbody></table></div>
            <p class="pager">\(model.paged ? "<a href=\"\("/console/audit?\(query: filter)" as ConsolePath)\">First page</a>" as HTML : .empty)
            \(model.nextCursor != nil ? "<a href=\"\("/console/audit?\(query: next)" as ConsolePath)\" rel=\"next\">Older entries</a>" as HTML : .empty)</p>
            """
    }

    /// An entry's details as one line of JSON (they never hold a secret: the audit log is written
    /// without tokens, keys or passwords).
    static func details(_ value: PayloadValue) -> String {
        guard case .object(let members) = value, !members.isEmpty else { return "" }
        return (try? CanonicalJSON.text(value)) ?? ""
    }
}
