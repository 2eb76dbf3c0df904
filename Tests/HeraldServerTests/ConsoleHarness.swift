import Foundation
import HTTPTypes
import HeraldConsole
import HeraldCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import HeraldServer

/// A browser's view of the console through the router test client: cookies kept between
/// requests, forms posted with the page's CSRF token.
struct ConsoleBrowser {
    let harness: APIHarness
    var cookies: [String: String] = [:]
    /// The CSRF token of the last page that had one.
    var csrf = ""
    /// Sent as `X-Forwarded-For`, for a console that trusts the test client as its proxy.
    var forwardedFor: String?

    init(_ harness: APIHarness) { self.harness = harness }

    /// A user added straight to the store, with a known password.
    static func addUser(
        _ harness: APIHarness, _ email: String, role: ConsoleRole, password: String = "correct horse battery"
    )
        async throws -> ConsoleUser
    {
        try await harness.store.users.add(
            email: email, role: role, passwordHash: try await Passwords.hash(password, cost: 4), actor: "test")
    }

    mutating func get(_ path: String) async throws -> Reply {
        try await send(.get, path, body: nil)
    }

    /// Posts `fields` as a form, adding the CSRF token unless `csrf` is false.
    mutating func post(_ path: String, _ fields: [(String, String)] = [], csrf: Bool = true) async throws -> Reply {
        var all = fields
        if csrf { all.append(("csrf", self.csrf)) }
        let body = all.map { "\(FormEncoding.encode($0.0))=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
        return try await send(.post, path, body: body)
    }

    /// Posts `fields` and `files` as `multipart/form-data`, as a browser sends a form with a file
    /// input, with the CSRF token.
    mutating func postMultipart(
        _ path: String, _ fields: [(String, String)], files: [(name: String, filename: String, bytes: [UInt8])]
    ) async throws -> Reply {
        let boundary = "----HeraldTestBoundary7MA4YWxkTrZu0gW"
        var body = ByteBuffer()
        for (name, value) in fields + [("csrf", csrf)] {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        for file in files {
            body.writeString(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n")
            body.writeBytes(file.bytes)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        return try await send(.post, path, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    mutating func postRaw(_ path: String, body: String, contentType: String = "application/x-www-form-urlencoded") async throws -> Reply {
        try await send(.post, path, body: ByteBuffer(string: body), contentType: contentType)
    }

    mutating func signIn(_ email: String, password: String = "correct horse battery") async throws -> Reply {
        _ = try await get("/console/login")
        return try await post("/console/login", [("email", email), ("password", password), ("next", "/console/campaigns")])
    }

    private mutating func send(_ method: HTTPRequest.Method, _ path: String, body: String?) async throws -> Reply {
        try await send(method, path, body: body.map { ByteBuffer(string: $0) }, contentType: "application/x-www-form-urlencoded")
    }

    private mutating func send(
        _ method: HTTPRequest.Method, _ path: String, body: ByteBuffer?, contentType: String
    ) async throws -> Reply {
        var headers = HTTPFields()
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if body != nil { headers[.contentType] = contentType }
        if let forwardedFor { headers[HTTPField.Name("X-Forwarded-For")!] = forwardedFor }
        let reply = try await harness.client.execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        }
        for field in reply.headers[values: .setCookie] {
            let pair = field.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || field.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        if let token = Self.csrfToken(in: reply.body) { csrf = token }
        return reply
    }

    static func csrfToken(in html: String) -> String? {
        for marker in ["name=\"csrf-token\" content=\"", "name=\"csrf\" value=\""] {
            if let range = html.range(of: marker) {
                return String(html[range.upperBound...].prefix(while: { $0 != "\"" }))
            }
        }
        return nil
    }
}

enum FormEncoding {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
