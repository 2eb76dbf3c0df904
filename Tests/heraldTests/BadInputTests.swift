@testable import herald
import Foundation
import Hummingbird
import Testing

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
        Case(description: "too long token", token: String(repeating: "ab", count: 101), status: .badRequest,
             slug: "invalid-device-token", field: "token"),
        Case(description: "unknown app", bundleID: "com.example.unknown", status: .notFound, slug: "unknown-app", field: "bundleID"),
        Case(description: "malformed JSON", body: #"{"languages": ["en""#, status: .badRequest, slug: "invalid-request"),
        Case(description: "not an object", body: #"["en"]"#, status: .badRequest, slug: "invalid-request"),
        Case(description: "unknown authorization status", body: #"{"authorization":{"status":"maybe"}}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "authorization.status"),
        Case(description: "authorization flag not boolean", body: #"{"authorization":{"status":"denied","alert":"yes"}}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "authorization.alert"),
        Case(description: "invalid language tag", body: #"{"languages":["en","english (US)"]}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "languages[1]"),
        Case(description: "too many languages", body: #"{"languages":["aa","ba","ca","da","ea","fa","ga","ha","ia","ja","ka"]}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "languages"),
        Case(description: "unknown time zone", body: #"{"timeZone":"Mars/Olympus_Mons"}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "timeZone"),
        Case(description: "attributes over 4 KiB", body: #"{"attributes":{"blob":"\#(String(repeating: "x", count: 4100))"}}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "attributes"),
        Case(description: "attributes not an object", body: #"{"attributes":[1,2]}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "attributes"),
        Case(description: "unknown environment", body: #"{"environment":"staging"}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "environment"),
        Case(description: "misspelt field", body: #"{"langauges":["en"]}"#,
             status: .unprocessableContent, slug: "invalid-field", field: "langauges"),
        Case(description: "body over 64 KiB", body: #"{"userID":"\#(String(repeating: "u", count: 70_000))"}"#,
             status: .contentTooLarge, slug: "payload-too-large"),
    ]

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
