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
