import Foundation
import Hummingbird
import Testing

@testable import HeraldServer

/// Every bad input gets its exact status and problem type, names the field, and leaves the
/// database as it was.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var token: String = APIHarness.token(9)
        var bundleID: String = APIHarness.bundleID
        var body: String = "{}"
        var status: HTTPResponse.Status
        var slug: String
        var field: String?
    }

    static let cases: [Case] = [
        Case(description: "odd-length token", token: "abcdef012", status: .badRequest, slug: "invalid-device-token", field: "token"),
        Case(description: "non-hex token", token: "abcdefgh01234567", status: .badRequest, slug: "invalid-device-token", field: "token"),
        Case(description: "too short token", token: "abcdef", status: .badRequest, slug: "invalid-device-token", field: "token"),
        Case(
            description: "too long token", token: String(repeating: "ab", count: 101), status: .badRequest,
            slug: "invalid-device-token", field: "token"),
        Case(description: "unknown app", bundleID: "com.example.unknown", status: .notFound, slug: "unknown-app", field: "bundleID"),
        Case(description: "malformed JSON", body: #"{"languages": ["en""#, status: .badRequest, slug: "invalid-request"),
        Case(description: "not an object", body: #"["en"]"#, status: .badRequest, slug: "invalid-request"),
        Case(
            description: "unknown authorization status", body: #"{"authorization":{"status":"maybe"}}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "authorization.status"),
        Case(
            description: "authorization flag not boolean", body: #"{"authorization":{"status":"denied","alert":"yes"}}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "authorization.alert"),
        Case(
            description: "invalid language tag", body: #"{"languages":["en","english (US)"]}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "languages[1]"),
        Case(
            description: "too many languages", body: #"{"languages":["aa","ba","ca","da","ea","fa","ga","ha","ia","ja","ka"]}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "languages"),
        Case(
            description: "unknown time zone", body: #"{"timeZone":"Mars/Olympus_Mons"}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "timeZone"),
        Case(
            description: "attributes over 4 KiB", body: #"{"attributes":{"blob":"\#(String(repeating: "x", count: 4100))"}}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "attributes"),
        Case(
            description: "attributes not an object", body: #"{"attributes":[1,2]}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "attributes"),
        Case(
            description: "unknown environment", body: #"{"environment":"staging"}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "environment"),
        Case(
            description: "misspelt field", body: #"{"langauges":["en"]}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "langauges"),
        Case(
            description: "body over 64 KiB", body: #"{"userID":"\#(String(repeating: "u", count: 70_000))"}"#,
            status: .contentTooLarge, slug: "payload-too-large"),
        Case(
            description: "attributes nested 33 deep", body: #"{"attributes":\#(BadInputTests.nested(33))}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "attributes" + String(repeating: ".a", count: 32)),
        Case(
            description: "attributes nested 510 deep", body: #"{"attributes":\#(BadInputTests.nested(510))}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "attributes" + String(repeating: ".a", count: 32)),
        Case(
            description: "control character deep in attributes",
            body: #"{"attributes":{"b":{"c":[1,{"d\u0007":2}]},"a":{"z":"ok"}}}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "attributes.b.c[1].d\u{7}"),
    ]

    /// `{"a":{"a":…{}}}`, `depth` objects deep.
    static func nested(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    /// What is stored can be read back: 32 levels (the most allowed) register, and the device
    /// and the list holding it read as they were written.
    @Test func attributesNestedAsDeepAsAllowedAreStoredAndReadBack() async throws {
        try await APIHarness.with { h in
            let path = "/v1/apps/\(APIHarness.bundleID)/devices"
            let put = try await h.request(
                .put, "\(path)/\(APIHarness.token(1))", key: h.adminKey, body: #"{"attributes":\#(Self.nested(32))}"#)
            #expect(put.status.code < 300, "\(put.body)")
            let read = try await h.request(.get, "\(path)/\(APIHarness.token(1))", key: h.adminKey)
            #expect(read.status == .ok && read.body.contains(String(repeating: #"{"a":"#, count: 31)))
            #expect(try await h.request(.get, path, key: h.adminKey).status == .ok)
        }
    }

    @Test(arguments: cases)
    func badRegistrationChangesNothing(_ c: Case) async throws {
        try await APIHarness.with { h in
            _ = try await h.request(.put, "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(1))", key: h.adminKey, body: "{}")
            let before = try await h.devicesSnapshot()
            let reply = try await h.request(.put, "/v1/apps/\(c.bundleID)/devices/\(c.token)", key: h.adminKey, body: c.body)
            #expect(reply.status == c.status)
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(reply.problemSlug == c.slug)
            #expect(reply.json["field"] as? String == c.field)
            #expect(reply.json["status"] as? Int == Int(c.status.code))
            #expect(reply.json["title"] is String && reply.json["detail"] is String)
            #expect(!reply.body.contains(c.token) || c.token.count < 8)
            #expect(try await h.devicesSnapshot() == before)
        }
    }
}
