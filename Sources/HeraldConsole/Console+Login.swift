import HTTPTypes
import HeraldCore
import Hummingbird

extension Console {
    func loginPage(_ request: Request) async throws -> Response {
        let next = Self.safeNext((try? FormData(query: request.uri.query))?["next"])
        if try await auth.session(request) != nil { return Response.redirect(to: next) }
        return loginForm(next: next, email: "", message: nil, status: .ok, secure: auth.secure(request))
    }

    func login(_ request: Request, address: String) async throws -> Response {
        let form = try await ConsoleAuth.form(request)
        let next = Self.safeNext(form["next"])
        // No session yet: the form's token must match the one doubled in the sign-in cookie.
        guard let cookie = request.cookies[ConsoleAuth.loginCookie]?.value,
            ConsoleAuth.same(form.raw(ConsoleAuth.csrfField), cookie)
        else { throw ConsoleError.expiredForm }
        let email = form.raw("email")
        let secure = auth.secure(request)
        switch try await auth.signIn(
            email: email, password: form.raw("password"), address: auth.clientAddress(request, peer: address), secure: secure)
        {
        case .signedIn(let sessionCookie):
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(sessionCookie)
            response.setCookie(auth.cookie(ConsoleAuth.loginCookie, "", maxAge: 0, secure: secure))
            return response
        case .refused(let reason):
            return loginForm(next: next, email: email, message: reason, status: .unauthorized, secure: secure)
        }
    }

    func logout(_ request: Request) async throws -> Response {
        let (_, _) = try await auth.requireForm(request, role: .viewer)
        var response = Response.redirect(to: "/console/login", type: .normal)
        response.setCookie(try await auth.signOut(request))
        return response
    }

    private func loginForm(next: String, email: String, message: String?, status: HTTPResponse.Status, secure: Bool) -> Response {
        let token = ConsoleAuth.randomToken()
        var response = ConsolePage.render(
            title: "Sign in", session: nil, body: LoginView.render(LoginView.Model(next: next, email: email, message: message, token: token)),
            status: status)
        response.setCookie(auth.cookie(ConsoleAuth.loginCookie, token, maxAge: 3600, secure: secure))
        return response
    }

    /// Where to go after sign-in: a console path only, never another site.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/console"), !next.hasPrefix("//"), !next.contains("\\"),
            next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return "/console/campaigns" }
        return next
    }
}
