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
        let roles = { (chosen: ConsoleRole) in
            ConsoleRole.allCases.html { "<option\($0 == chosen ? " selected" as HTML : .empty)>\($0.rawValue)</option>" }
        }
        let rows = all.html { user in
            let csrf = ConsolePage.csrfField(session)
            if user.id == session.user.id {
                return """
                    <tr><td>\(user.email)</td><td>\(user.role.rawValue)</td>
                    <td class="hide-narrow">\(ConsoleFormat.time(user.lastLoginAt))</td><td>active (you)</td>
                    <td><form class="inline" method="post" action="/console/users">\(csrf)<input type="hidden" name="user" value="\(user.id)">
                    <button type="submit" name="intent" value="reset" class="secondary">Reset my password</button></form></td></tr>
                    """
            }
            return """
                <tr><td>\(user.email)</td><td><form class="inline" method="post" action="/console/users">\(csrf)
                <input type="hidden" name="user" value="\(user.id)"><select name="role" aria-label="role">\(roles(user.role))</select>
                <button type="submit" name="intent" value="role" class="secondary">Set</button></form></td>
                <td class="hide-narrow">\(ConsoleFormat.time(user.lastLoginAt))</td>
                <td>\(user.disabledAt == nil ? "active" : "disabled")</td>
                <td><form class="inline" method="post" action="/console/users">\(csrf)<input type="hidden" name="user" value="\(user.id)">
                <button type="submit" name="intent" value="\(user.disabledAt == nil ? "disable" : "enable")" class="secondary">\(user.disabledAt == nil ? "Disable" : "Enable")</button>
                <button type="submit" name="intent" value="reset" class="secondary">Reset password</button></form></td></tr>
                """
        }
        let body: HTML = """
            <h1>Users</h1>\(notice)
            <div class="scroll"><table id="users"><thead><tr><th>Email</th><th>Role</th><th class="hide-narrow">Last sign-in</th><th>State</th><th></th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            <div class="card"><h2>Add a user</h2>
            <p class="hint">Viewers read everything; marketing builds, tests, schedules, pauses and cancels campaigns; admins also manage users and prune devices.</p>
            <form method="post" action="/console/users">\(ConsolePage.csrfField(session))
            <div class="grid2"><div><label for="u-email">Email</label><input type="email" id="u-email" name="email" required></div>
            <div><label for="u-role">Role</label><select id="u-role" name="role">\(roles(.viewer))</select></div></div>
            <p class="actions"><button type="submit" name="intent" value="add">Add user</button></p></form></div>
            """
        return ConsolePage.render(title: "Users", session: session, section: .users, body: body, status: status)
    }
}
