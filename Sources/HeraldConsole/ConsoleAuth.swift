import Crypto
import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird

/// Who is signed in: sessions in PostgreSQL behind an HttpOnly, SameSite=Strict cookie holding
/// 256 random bits (only their hash is stored), a CSRF token per session that every form must
/// carry, and sign-in throttled per address and locked per account (docs/console.md).
struct ConsoleAuth: Sendable {
    static let sessionCookie = "herald_session"
    /// Before sign-in there is no session: the sign-in form's token is doubled in this cookie.
    static let loginCookie = "herald_login"
    static let csrfField = "csrf"

    let users: any ConsoleUserRepository
    let sessions: any ConsoleSessionRepository
    let settings: ConsoleSettings
    let throttle: LoginThrottle

    init(users: any ConsoleUserRepository, sessions: any ConsoleSessionRepository, settings: ConsoleSettings) {
        self.users = users
        self.sessions = sessions
        self.settings = settings
        throttle = LoginThrottle(perMinute: settings.attemptsPerMinute, failuresPerAccount: settings.lockoutThreshold)
    }

    /// The request's live session, if any.
    func session(_ request: Request) async throws -> ConsoleSession? {
        guard let token = request.cookies[Self.sessionCookie]?.value, let hash = Self.hash(token) else { return nil }
        return try await sessions.find(
            tokenHash: hash, now: Date(), idle: settings.idleTimeout, absoluteLimit: settings.absoluteTimeout)
    }

    /// The session of a user with at least `role`; else to sign-in (no session) or 403.
    func require(_ request: Request, role: ConsoleRole) async throws -> ConsoleSession {
        guard let session = try await session(request) else {
            let back = request.method == .get ? request.uri.string : "/console"
            throw ConsoleRedirect(location: ("/console/login?next=\(query: back)" as ConsolePath).description)
        }
        guard session.user.role >= role else {
            throw ConsoleError.forbidden("This needs the \(role.rawValue) role; you are signed in as \(session.user.role.rawValue).")
        }
        return session
    }

    /// A posted form of a user with at least `role`, after its CSRF token is checked.
    func requireForm(_ request: Request, role: ConsoleRole) async throws -> (ConsoleSession, FormData) {
        let session = try await require(request, role: role)
        let form = try await Self.form(request)
        guard Self.same(form.raw(Self.csrfField), session.csrfToken) else { throw ConsoleError.expiredForm }
        return (session, form)
    }

    /// A script's POST: the token comes in the `X-CSRF-Token` header.
    func requireScript(_ request: Request, role: ConsoleRole) async throws -> (ConsoleSession, FormData) {
        let session = try await require(request, role: role)
        guard let header = HTTPField.Name("X-CSRF-Token"), Self.same(request.headers[header] ?? "", session.csrfToken) else {
            throw ConsoleError.expiredForm
        }
        return (session, try await Self.form(request))
    }

    enum SignIn {
        case signedIn(cookie: Cookie)
        case refused(String)
    }

    /// Checks the password and opens a session. The answer never says whether the email exists,
    /// and takes the same time either way: an unknown email, a wrong password and an account
    /// others have been guessing at each cost one bcrypt verification and get the same words.
    /// Repeated failures throttle that account from that address only (`LoginThrottle`), so a
    /// guesser cannot lock an admin out.
    func signIn(email: String, password: String, address: String, secure: Bool) async throws -> SignIn {
        let refused = SignIn.refused("Wrong email or password.")
        guard throttle.allow(address) else {
            return .refused("Too many sign-in attempts from your address; wait a minute and try again.")
        }
        let account = (try? ConsoleUserRules.normalizedEmail(email)) ?? email.lowercased()
        guard throttle.allow(account: account, from: address) else {
            return .refused("Too many failed sign-ins to this account from your address; wait 15 minutes and try again.")
        }
        guard let normalized = try? ConsoleUserRules.normalizedEmail(email), password.utf8.count <= 1024,
            let credentials = try await users.credentials(email: normalized)
        else {
            _ = try await Passwords.verifyDecoy(password)
            throttle.recordFailure(account: account, from: address)
            return refused
        }
        let now = Date()
        guard try await Passwords.verify(password, hash: credentials.passwordHash) else {
            throttle.recordFailure(account: account, from: address)
            return refused
        }
        throttle.recordSuccess(account: account, from: address)
        guard credentials.user.disabledAt == nil else { return .refused("This account is disabled; ask an admin.") }
        try await users.recordLogin(userID: credentials.user.id, now: now)
        // Sign-ins are rare enough to sweep expired sessions as they happen.
        _ = try await sessions.deleteExpired(now: now)
        let token = Self.randomToken()
        try await sessions.create(
            tokenHash: Self.hash(token) ?? [], userID: credentials.user.id, csrfToken: Self.randomToken(),
            expiresAt: now.addingTimeInterval(min(settings.idleTimeout, settings.absoluteTimeout)))
        return .signedIn(cookie: cookie(Self.sessionCookie, token, maxAge: Int(settings.absoluteTimeout), secure: secure))
    }

    func signOut(_ request: Request) async throws -> Cookie {
        if let token = request.cookies[Self.sessionCookie]?.value, let hash = Self.hash(token) {
            try await sessions.delete(tokenHash: hash)
        }
        return cookie(Self.sessionCookie, "", maxAge: 0, secure: secure(request))
    }

    /// Who is signing in, for throttling: the connection's peer, or behind trusted proxies the
    /// right-most address in `X-Forwarded-For` that is not one of them (the ones to its left
    /// are the client's own claims).
    func clientAddress(_ request: Request, peer: String) -> String {
        guard settings.trustedProxies.contains(peer), let header = HTTPField.Name("X-Forwarded-For") else { return peer }
        let hops = request.headers[values: header].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !settings.trustedProxies.contains($0) } ?? peer
    }

    func cookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/console", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// Cookies are `Secure` unless the setting turns that off, or the request is plainly a
    /// browser on this machine over plain HTTP (`ops/demo`): its Host is a loopback name and
    /// no proxy forwarded it. A proxy in front (even on this machine) adds `X-Forwarded-*` or
    /// `Forwarded`, or names the public host, so its users get `Secure` cookies.
    func secure(_ request: Request) -> Bool {
        guard settings.secureCookies else { return false }
        return !Self.isPlainLoopback(request)
    }

    static func isPlainLoopback(_ request: Request) -> Bool {
        let forwarded = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded"].contains { name in
            HTTPField.Name(name).map { request.headers[$0] != nil } ?? false
        }
        guard !forwarded, let authority = request.head.authority else { return false }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return ["localhost", "127.0.0.1", "::1"].contains(host.lowercased())
    }

    // MARK: - Helpers

    static func form(_ request: Request) async throws -> FormData {
        let body = try await request.body.collect(upTo: 256 * 1024)
        do {
            if let boundary = request.headers[.contentType].flatMap(MultipartForm.boundary(contentType:)) {
                return FormData(try MultipartForm(Array(body.readableBytesView), boundary: boundary))
            }
            let text = String(decoding: body.readableBytesView, as: UTF8.self)
            return try FormData(encoded: Substring(text))
        } catch let error as ValidationError {
            throw ConsoleError.badRequest("The form could not be read: \(error.field) \(error.reason).")
        }
    }

    /// 256 random bits as 64 hex digits.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The stored form of a cookie token; nil for a value that is not one of ours.
    static func hash(_ token: String) -> [UInt8]? {
        guard token.utf8.count == 64, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return Array(SHA256.hash(data: Data(token.utf8)))
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        ConstantTime.equal(lhs, rhs)
    }
}
