import Foundation
import HeraldCore
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

    /// More lines than one batch holds (4,000 on one PostgreSQL, 16,000 on a cluster): every line
    /// is stored, and a token repeated in the second batch is updated, not counted twice.
    @Test(arguments: CitusTestDatabase.engines) func importsManyLinesInBatches(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let count = (onCluster ? DeviceImportBatching.distributedLines : DeviceImportBatching.lines) + 1_500
            var lines = (1...count).map { #"{"token":"\#(APIHarness.token($0))","languages":["en"]}"# }
            lines.append(#"{"token":"\#(APIHarness.token(7))","languages":["fr"]}"#)
            let reply = try await h.request(.post, path, key: h.adminKey, body: lines.joined(separator: "\n") + "\n")
            #expect(reply.json["lines"] as? Int == count + 1)
            #expect(reply.json["created"] as? Int == count)
            #expect(reply.json["updated"] as? Int == 1)
            #expect(reply.json["rejected"] as? Int == 0)
            #expect(try await h.deviceCount() == count)
        }
    }
}
