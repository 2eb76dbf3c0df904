import HeraldCore

/// The users page: a pure function of its model.
enum UsersView {
    struct Model {
        var users: [ConsoleUser]
        var notice: HTML?
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let roles = { (chosen: ConsoleRole) in
            ConsoleRole.allCases.html { "<option\($0 == chosen ? " selected" as HTML : .empty)>\($0.rawValue)</option>" }
        }
        let rows = model.users.html { user in
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
        return """
            <h1>Users</h1>\(model.notice)
            <div class="scroll"><table id="users"><thead><tr><th>Email</th><th>Role</th><th class="hide-narrow">Last sign-in</th><th>State</th><th></th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            <div class="card"><h2>Add a user</h2>
            <p class="hint">Viewers read everything; marketing builds, tests, schedules, pauses and cancels campaigns; admins also manage users and prune devices.</p>
            <form method="post" action="/console/users">\(ConsolePage.csrfField(session))
            <div class="grid2"><div><label for="u-email">Email</label><input type="email" id="u-email" name="email" required></div>
            <div><label for="u-role">Role</label><select id="u-role" name="role">\(roles(.viewer))</select></div></div>
            <p class="actions"><button type="submit" name="intent" value="add">Add user</button></p></form></div>
            """
    }
}
