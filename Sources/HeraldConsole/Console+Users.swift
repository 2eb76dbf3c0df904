import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Admins add users, change roles, disable them and reset passwords. A new password is
    /// generated and shown once, on the page that made it.
    func usersPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        return try await users(session: session, notice: nil)
    }

    func usersSubmit(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .admin)
        let actor = session.user.actor
        var notice: HTML
        switch form["intent"] {
        case "add":
            let email: String
            do { email = try ConsoleUserRules.normalizedEmail(form.raw("email")) } catch let error as ValidationError {
                return try await users(
                    session: session, notice: "<p class=\"notice bad\" role=\"alert\">email: \(error.reason)</p>", status: .unprocessableContent)
            }
            guard let role = ConsoleRole(rawValue: form.raw("role")) else { throw ConsoleError.badRequest("No role \(form.raw("role")).") }
            let password = Passwords.generate()
            do {
                _ = try await dependencies.users.add(
                    email: email, role: role, passwordHash: try await Passwords.hash(password, cost: dependencies.settings.bcryptCost),
                    actor: actor)
            } catch let error as ValidationError {
                return try await users(
                    session: session, notice: "<p class=\"notice bad\" role=\"alert\">\(error.field): \(error.reason)</p>",
                    status: .unprocessableContent)
            }
            notice =
                "<p class=\"notice\" id=\"new-password\">Added \(email) as \(role.rawValue). Their password, shown this once: <code>\(password)</code></p>"
        case "disable", "enable", "reset", "role":
            guard let id = Int64(form.raw("user")) else { throw ConsoleError.badRequest("No user given.") }
            guard id != session.user.id || form["intent"] == "reset" else {
                throw ConsoleError.forbidden("You cannot disable yourself or change your own role; ask another admin.")
            }
            switch form["intent"] {
            case "disable", "enable":
                let disable = form["intent"] == "disable"
                guard try await dependencies.users.setDisabled(userID: id, disabled: disable, actor: actor) else {
                    throw ConsoleError.notFound("user")
                }
                notice = "<p class=\"notice\">User \(id) \(disable ? "disabled; their sessions have ended" : "enabled").</p>"
            case "role":
                guard let role = ConsoleRole(rawValue: form.raw("role")) else { throw ConsoleError.badRequest("No role \(form.raw("role")).") }
                guard try await dependencies.users.setRole(userID: id, role: role, actor: actor) else { throw ConsoleError.notFound("user") }
                notice = "<p class=\"notice\">User \(id) is now \(role.rawValue).</p>"
            default:
                let password = Passwords.generate()
                let hash = try await Passwords.hash(password, cost: dependencies.settings.bcryptCost)
                guard try await dependencies.users.setPassword(userID: id, passwordHash: hash, actor: actor) else {
                    throw ConsoleError.notFound("user")
                }
                if id == session.user.id { throw ConsoleRedirect(location: "/console/login") }
                notice =
                    "<p class=\"notice\" id=\"new-password\">New password for user \(id), shown this once: <code>\(password)</code>. Their sessions have ended.</p>"
            }
        default:
            throw ConsoleError.badRequest("Unknown action.")
        }
        return try await users(session: session, notice: notice)
    }

    private func users(session: ConsoleSession, notice: HTML?, status: HTTPResponse.Status = .ok) async throws -> Response {
        var all = [ConsoleUser]()
        while all.count < 5000 {
            let page = try await dependencies.users.list(after: all.last?.id, limit: 500)
            all += page
            if page.count < 500 { break }
        }
        let body = UsersView.render(UsersView.Model(users: all, notice: notice), session: session)
        return ConsolePage.render(title: "Users", session: session, section: .users, body: body, status: status)
    }
}
