import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Admins create API keys (the secret is shown once, on the page that made it) and revoke them.
    func keysPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        return try await keys(session: session, notice: nil)
    }

    func keysSubmit(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .admin)
        guard let repository = dependencies.keys else { throw ConsoleError.notFound("This Herald manages no API keys here.") }
        switch form["intent"] {
        case "create":
            let apps = try await dependencies.apps.list()
            let new: NewAPIKey
            do {
                guard let role = APIKeyRole(rawValue: form.raw("role")) else {
                    throw ValidationError(field: "role", reason: "must be app, marketing or admin")
                }
                var appID: Int64?
                if let bundleID = form["app"] {
                    guard let app = apps.first(where: { $0.bundleID == bundleID }) else {
                        throw ValidationError(field: "app", reason: "no app \(bundleID)")
                    }
                    appID = app.id
                }
                var expiresAt: Date?
                if let day = form["expires"] {
                    guard let date = ConsoleFormat.day(day) else {
                        throw ValidationError(field: "expires", reason: "must be a day such as 2027-06-30")
                    }
                    expiresAt = date
                }
                new = try NewAPIKey(role: role, appID: role == .app ? appID : nil, name: form["name"], expiresAt: expiresAt)
            } catch let error as ValidationError {
                return try await keys(
                    session: session, notice: "<p class=\"notice bad\" role=\"alert\">\(error.field): \(error.reason)</p>",
                    status: .unprocessableContent)
            }
            let (key, secret) = try await repository.create(new, actor: session.user.actor)
            let notice: HTML = """
                <p class="notice" id="new-key">Created key \(key.prefix)… (\(key.role.rawValue)). Its secret, shown this once: <code>\(secret.value)</code></p>
                """
            return try await keys(session: session, notice: notice)
        case "revoke":
            guard let id = Int64(form.raw("key")), id > 0 else { throw ConsoleError.badRequest("No key given.") }
            let revoked = try await repository.revoke(id: id, actor: session.user.actor)
            dependencies.forgetKey(id)
            guard revoked else { throw ConsoleError.notFound("No active key has this ID.") }
            return try await keys(session: session, notice: "<p class=\"notice\">Key \(id) revoked: it works nowhere from now on.</p>")
        default:
            throw ConsoleError.badRequest("Unknown action.")
        }
    }

    private func keys(session: ConsoleSession, notice: HTML?, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let repository = dependencies.keys else { throw ConsoleError.notFound("This Herald manages no API keys here.") }
        let model = KeysView.Model(
            keys: try await repository.list(), apps: try await dependencies.apps.list().map(\.bundleID), notice: notice, now: Date())
        return ConsolePage.render(title: "API keys", session: session, section: .keys, body: KeysView.render(model, session: session), status: status)
    }
}

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
