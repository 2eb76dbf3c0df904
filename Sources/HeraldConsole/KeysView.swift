import Foundation
import HeraldCore

/// The API keys page: a pure function of its model.
enum KeysView {
    struct Model {
        var keys: [APIKey]
        var apps: [String]
        var notice: HTML?
        var now: Date
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let rows = model.keys.html { key in
            let state: String =
                if key.revokedAt != nil { "revoked" } else if let expires = key.expiresAt, expires <= model.now { "expired" } else { "active" }
            let scope = key.bundleID ?? key.appScope?.joined(separator: ", ") ?? "every app"
            let revoke: HTML =
                state == "active"
                ? """
                <form class="inline" method="post" action="/console/keys" data-confirm="Revoke \(key.prefix)…? Whatever uses it stops working at once.">\(ConsolePage.csrfField(session))
                <input type="hidden" name="key" value="\(key.id)"><button type="submit" name="intent" value="revoke" class="danger">Revoke</button></form>
                """
                : .empty
            return """
                <tr data-key="\(key.prefix)"><td><code>\(key.prefix)…</code></td><td>\(key.role.rawValue)</td><td>\(scope)</td><td>\(key.name ?? "")</td>
                <td class="hide-narrow">\(ConsoleFormat.time(key.createdAt))</td><td class="hide-narrow">\(ConsoleFormat.time(key.lastUsedAt))</td>
                <td>\(key.expiresAt.map { ConsoleFormat.time($0) } ?? "never")</td><td class="state">\(state)</td><td>\(revoke)</td></tr>
                """
        }
        let appOptions = model.apps.html { "<option value=\"\($0)\">\($0)</option>" }
        let roleOptions = APIKeyRole.allCases.html { "<option\($0 == .marketing ? " selected" as HTML : .empty)>\($0.rawValue)</option>" }
        return """
            <h1>API keys</h1>\(model.notice)
            <div class="scroll"><table id="keys"><thead><tr><th>Key</th><th>Role</th><th>Apps</th><th>Name</th><th class="hide-narrow">Created</th>
            <th class="hide-narrow">Last used</th><th>Expires</th><th>State</th><th></th></tr></thead>
            <tbody>\(model.keys.isEmpty ? "<tr><td colspan=\"9\" class=\"muted\">No keys yet.</td></tr>" as HTML : rows)</tbody></table></div>
            <div class="card"><h2>Create a key</h2>
            <p class="hint">App keys register devices and send for their one app; marketing keys build and send campaigns; admin keys also manage apps, keys and credentials. The secret is shown once.</p>
            <form method="post" action="/console/keys">\(ConsolePage.csrfField(session))
            <div class="grid2"><div><label for="k-role">Role</label><select id="k-role" name="role">\(roleOptions)</select></div>
            <div><label for="k-app">App (app keys)</label><select id="k-app" name="app"><option value="">–</option>\(appOptions)</select></div>
            <div><label for="k-name">Name</label><input type="text" id="k-name" name="name" placeholder="ci-deploy"></div>
            <div><label for="k-expires">Expires (UTC day)</label><input type="date" id="k-expires" name="expires"></div></div>
            <p class="actions"><button type="submit" name="intent" value="create">Create key</button></p></form></div>
            """
    }
}
