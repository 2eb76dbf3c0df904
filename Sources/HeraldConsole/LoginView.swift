/// The sign-in page: a pure function of its model.
enum LoginView {
    struct Model {
        /// The console path to go to after signing in (already checked by `Console.safeNext`).
        var next: String
        var email: String
        /// Why the last attempt was refused.
        var message: String?
        /// The form's token, doubled in the sign-in cookie.
        var token: String
    }

    static func render(_ model: Model) -> HTML {
        """
        <div class="card login"><h1>Sign in to Herald</h1>
        \(model.message.map { "<p class=\"notice bad\" role=\"alert\">\($0)</p>" as HTML })
        <form method="post" action="/console/login">
        <input type="hidden" name="\(ConsoleAuth.csrfField)" value="\(model.token)">
        <input type="hidden" name="next" value="\(model.next)">
        <label for="email">Email</label><input type="email" id="email" name="email" value="\(model.email)" autocomplete="username" required autofocus>
        <label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
        <p class="actions"><button type="submit">Sign in</button></p>
        </form>
        <p class="hint">Accounts are made by an admin, in the console or with <code>herald users add</code>.</p></div>
        """
    }
}
