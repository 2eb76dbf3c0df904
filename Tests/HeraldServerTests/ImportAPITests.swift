import Foundation
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

@Suite struct ImportAPITests {
    let path = "/v1/apps/\(APIHarness.bundleID)/devices/import"

    @Test(arguments: CitusTestDatabase.engines) func importsGoodLinesAndReportsBadOnesByNumber(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            _ = try await h.request(.put, "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(1))", key: h.appKey, body: "{}")
            let lines = [
                #"{"token":"\#(APIHarness.token(1))","languages":["de"]}"#,  // 1: update
                #"{"token":"\#(APIHarness.token(2))","languages":["ja","en"],"authorization":{"status":"denied"}}"#,  // 2
                "not json",  // 3
                #"{"token":"abc"}"#,  // 4: odd length
                "",  // 5: blank, skipped
                #"{"token":"\#(APIHarness.token(3))","timeZone":"Nowhere/Land"}"#,  // 6
                #"{"languages":["en"]}"#,  // 7: no token
                #"{"token":"\#(APIHarness.token(2))","userID":"again"}"#,  // 8: same token again
                #"{"token":"\#(APIHarness.token(4))","environment":"sandbox"}"# + "\r",  // 9: CRLF
                #"{"token":"\#(APIHarness.token(5))","extra":1}"#,  // 10
            ]
            let reply = try await h.request(.post, path, key: h.appKey, body: lines.joined(separator: "\n"))
            #expect(reply.status == .ok)
            #expect(reply.json["lines"] as? Int == 9)
            #expect(reply.json["created"] as? Int == 2)
            #expect(reply.json["updated"] as? Int == 2)
            #expect(reply.json["rejected"] as? Int == 5)
            let errors = reply.json["errors"] as? [[String: Any]] ?? []
            #expect(errors.compactMap { $0["line"] as? Int } == [3, 4, 6, 7, 10])
            #expect(errors.map { $0["field"] as? String } == [nil, "token", "timeZone", "token", "extra"])
            #expect(try await h.deviceCount() == 3)
            let two = try await h.request(.get, "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(2))", key: h.appKey)
            #expect(two.json["userID"] as? String == "again")
            #expect(!reply.body.contains(APIHarness.token(2)))
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func importsManyLinesInBatches(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let count = 2_500
            let body = (1...count).map { #"{"token":"\#(APIHarness.token($0))","languages":["en"]}"# }.joined(separator: "\n") + "\n"
            let reply = try await h.request(.post, path, key: h.adminKey, body: body)
            #expect(reply.json["created"] as? Int == count)
            #expect(reply.json["rejected"] as? Int == 0)
            #expect(try await h.deviceCount() == count)
        }
    }
}
