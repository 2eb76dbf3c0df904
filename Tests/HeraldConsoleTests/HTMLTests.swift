import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore
import Testing

@testable import HeraldConsole

@Suite struct HTMLTests {
    @Test func interpolatedTextIsEscaped() {
        let name = "<script>alert('x')</script> & \"more\""
        let html: HTML = "<td title=\"\(name)\">\(name)</td>"
        #expect(
            html.text
                == "<td title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;\">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;</td>"
        )
    }

    @Test func nestedHTMLIsNotEscapedTwice() {
        let inner: HTML = "<b>\("a<b")</b>"
        let outer: HTML = "<p>\(inner)</p>"
        #expect(outer.text == "<p><b>a&lt;b</b></p>")
    }

    @Test func sequencesJoinTheirParts() {
        let list = ["x", "<y>"].html { "<li>\($0)</li>" }
        #expect(list.text == "<li>x</li><li>&lt;y&gt;</li>")
    }
}

@Suite struct FormDataTests {
    @Test func decodesPlusPercentAndRepeatedNames() throws {
        let form = try FormData(encoded: "name=Spring+sale%21&lang=en&lang=de&empty=&csrf=abc")
        #expect(form["name"] == "Spring sale!")
        #expect(form.all("lang") == ["en", "de"])
        #expect(form["empty"] == nil)
        #expect(form.raw("csrf") == "abc")
    }

    @Test func refusesMalformedEscapesAndNonUTF8() {
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%4") }
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%zz") }
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%ff%fe") }
    }

    @Test func encodesForLinks() {
        #expect(FormData.encode("a b&c/é") == "a%20b%26c%2F%C3%A9")
    }
}

@Suite struct ConsoleAuthTests {
    @Test func tokensAreRandomHexAndHashOnlyTheirOwnShape() {
        let token = ConsoleAuth.randomToken()
        #expect(token.count == 64)
        #expect(token != ConsoleAuth.randomToken())
        #expect(ConsoleAuth.hash(token)?.count == 32)
        #expect(ConsoleAuth.hash("short") == nil)
        #expect(ConsoleAuth.hash(String(repeating: "Z", count: 64)) == nil)
    }

    @Test func comparesTokensWholly() {
        #expect(ConsoleAuth.same("abc", "abc"))
        #expect(!ConsoleAuth.same("abc", "abd"))
        #expect(!ConsoleAuth.same("abc", "abcd"))
        #expect(!ConsoleAuth.same("", ""))
    }

    @Test func signInReturnsOnlyToConsolePaths() {
        #expect(Console.safeNext("/console/campaigns/1") == "/console/campaigns/1")
        #expect(Console.safeNext("https://evil.example/") == "/console/campaigns")
        #expect(Console.safeNext("//evil.example/console") == "/console/campaigns")
        #expect(Console.safeNext("/console\\..\\x") == "/console/campaigns")
        #expect(Console.safeNext(nil) == "/console/campaigns")
    }

    @Test func throttleCountsAttemptsPerAddressPerMinute() {
        let throttle = LoginThrottle(perMinute: 2, failuresPerAccount: 5)
        let start = Date(timeIntervalSince1970: 0)
        #expect(throttle.allow("a", now: start))
        #expect(throttle.allow("a", now: start))
        #expect(!throttle.allow("a", now: start.addingTimeInterval(30)))
        #expect(throttle.allow("b", now: start.addingTimeInterval(30)))
        #expect(throttle.allow("a", now: start.addingTimeInterval(61)))
    }

    /// Failures hold back one account from one address for 15 minutes; other addresses, and
    /// other accounts from the same address, are untouched; a success clears the count.
    @Test func failuresThrottleAnAccountFromOneAddressOnly() {
        let throttle = LoginThrottle(perMinute: 100, failuresPerAccount: 3)
        let start = Date(timeIntervalSince1970: 0)
        for n in 0..<3 { throttle.recordFailure(account: "admin@x", from: "1.2.3.4", now: start.addingTimeInterval(Double(n))) }
        #expect(!throttle.allow(account: "admin@x", from: "1.2.3.4", now: start.addingTimeInterval(10)))
        #expect(throttle.allow(account: "admin@x", from: "5.6.7.8", now: start.addingTimeInterval(10)))
        #expect(throttle.allow(account: "other@x", from: "1.2.3.4", now: start.addingTimeInterval(10)))
        #expect(throttle.allow(account: "admin@x", from: "1.2.3.4", now: start.addingTimeInterval(15 * 60 + 3)))
        throttle.recordFailure(account: "b@x", from: "1.2.3.4", now: start)
        throttle.recordSuccess(account: "b@x", from: "1.2.3.4")
        for _ in 0..<2 { throttle.recordFailure(account: "b@x", from: "1.2.3.4", now: start) }
        #expect(throttle.allow(account: "b@x", from: "1.2.3.4", now: start))
    }

    @Test func onlyAPlainHTTPRequestToALoopbackHostGetsCookiesWithoutSecure() {
        func request(_ authority: String, _ extra: [(String, String)] = []) -> Request {
            var headers = HTTPFields()
            for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
            return Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/console/login", headerFields: headers),
                body: .init(buffer: ByteBuffer()))
        }
        #expect(ConsoleAuth.isPlainLoopback(request("127.0.0.1:8080")))
        #expect(ConsoleAuth.isPlainLoopback(request("localhost")))
        #expect(ConsoleAuth.isPlainLoopback(request("[::1]:8080")))
        #expect(!ConsoleAuth.isPlainLoopback(request("herald.example.com")))
        #expect(!ConsoleAuth.isPlainLoopback(request("127.0.0.1:8080", [("X-Forwarded-Proto", "https")])))
        #expect(!ConsoleAuth.isPlainLoopback(request("localhost", [("X-Forwarded-For", "203.0.113.9")])))
        #expect(!ConsoleAuth.isPlainLoopback(request("localhost", [("Forwarded", "for=203.0.113.9")])))
        #expect(!ConsoleAuth.isPlainLoopback(request("127.0.0.1.evil.example")))
    }
}

@Suite struct ClientAddressTests {
    func auth(trusting proxies: Set<String>) -> ConsoleAuth {
        ConsoleAuth(users: NoUsers(), sessions: NoSessions(), settings: ConsoleSettings(trustedProxies: proxies))
    }

    func request(forwardedFor: String?) -> Request {
        var headers = HTTPFields()
        if let forwardedFor { headers[HTTPField.Name("X-Forwarded-For")!] = forwardedFor }
        return Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "h", path: "/console/login", headerFields: headers),
            body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func onlyATrustedProxyMayNameTheClient() {
        let direct = auth(trusting: [])
        #expect(direct.clientAddress(request(forwardedFor: "1.2.3.4"), peer: "9.9.9.9") == "9.9.9.9")
        let proxied = auth(trusting: ["10.0.0.1", "10.0.0.2"])
        #expect(proxied.clientAddress(request(forwardedFor: "6.6.6.6, 1.2.3.4, 10.0.0.2"), peer: "10.0.0.1") == "1.2.3.4")
        #expect(proxied.clientAddress(request(forwardedFor: nil), peer: "10.0.0.1") == "10.0.0.1")
        #expect(proxied.clientAddress(request(forwardedFor: "1.2.3.4"), peer: "8.8.8.8") == "8.8.8.8")
    }
}

struct NoUsers: ConsoleUserRepository {
    func add(email: String, role: ConsoleRole, passwordHash: String, actor: String) async throws -> ConsoleUser { fatalError() }
    func list(after cursor: Int64?, limit: Int) async throws -> [ConsoleUser] { [] }
    func find(email: String) async throws -> ConsoleUser? { nil }
    func credentials(email: String) async throws -> ConsoleCredentials? { nil }
    func recordLogin(userID: Int64, now: Date) async throws {}
    func setDisabled(userID: Int64, disabled: Bool, actor: String) async throws -> Bool { false }
    func setPassword(userID: Int64, passwordHash: String, actor: String) async throws -> Bool { false }
    func setRole(userID: Int64, role: ConsoleRole, actor: String) async throws -> Bool { false }
}

struct NoSessions: ConsoleSessionRepository {
    func create(tokenHash: [UInt8], userID: Int64, csrfToken: String, expiresAt: Date) async throws {}
    func find(tokenHash: [UInt8], now: Date, idle: TimeInterval, absoluteLimit: TimeInterval) async throws -> ConsoleSession? { nil }
    func delete(tokenHash: [UInt8]) async throws {}
    func deleteExpired(now: Date) async throws -> Int { 0 }
}
