@testable import herald
import Foundation
import Hummingbird
import Testing

@Suite struct AccessTests {
    let devices = "/v1/apps/\(APIHarness.bundleID)/devices"

    @Test func missingUnknownOrMalformedKeysGet401() async throws {
        try await APIHarness.with { h in
            for key in [nil, "hk_" + String(repeating: "0", count: 64), "not-a-key"] {
                let reply = try await h.request(.get, devices, key: key)
                #expect(reply.status == .unauthorized && reply.problemSlug == "unauthorized")
                #expect(reply.headers[.wwwAuthenticate] == "Bearer")
            }
            var headers = HTTPFields()
            headers[.authorization] = "Basic \(h.adminKey)"
            let basic = try await h.client.execute(uri: devices, method: .get, headers: headers, body: nil) { $0.status }
            #expect(basic == .unauthorized)
        }
    }

    @Test func revokedKeysStopAtOnce() async throws {
        try await APIHarness.with { h in
            #expect(try await h.request(.get, devices, key: h.appKey).status == .ok)
            let id = try #require(try await h.store.keys.list().first { $0.role == .app && $0.bundleID == APIHarness.bundleID }?.id)
            #expect(try await h.store.keys.revoke(id: id, actor: "test"))
            let reply = try await h.request(.put, "\(devices)/\(APIHarness.token(1))", key: h.appKey, body: "{}")
            #expect(reply.status == .unauthorized && reply.problemSlug == "unauthorized")
            #expect(try await h.deviceCount() == 0)
        }
    }

    @Test func appKeysReachOnlyTheirOwnApp() async throws {
        try await APIHarness.with { h in
            let token = APIHarness.token(1)
            let other = try await h.request(.put, "\(devices)/\(token)", key: h.otherAppKey, body: "{}")
            #expect(other.status == .forbidden && other.problemSlug == "forbidden")
            #expect(try await h.request(.get, devices, key: h.otherAppKey).status == .forbidden)
            let import_ = try await h.request(.post, "\(devices)/import", key: h.otherAppKey, body: #"{"token":"\#(token)"}"#)
            #expect(import_.status == .forbidden)
            #expect(try await h.deviceCount() == 0)
            let own = try await h.request(.put, "/v1/apps/\(APIHarness.otherBundleID)/devices/\(token)", key: h.otherAppKey, body: "{}")
            #expect(own.status == .created)
        }
    }

    @Test func marketingReadsButNeverWritesOrPrunes() async throws {
        try await APIHarness.with { h in
            let token = APIHarness.token(1)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.adminKey, body: "{}")
            #expect(try await h.request(.get, "\(devices)/\(token)", key: h.marketingKey).status == .ok)
            #expect(try await h.request(.get, devices, key: h.marketingKey).status == .ok)
            let before = try await h.devicesSnapshot()
            for (method, path, body) in [
                (HTTPRequest.Method.put, "\(devices)/\(token)", #"{"languages":["de"]}"#),
                (.delete, "\(devices)/\(token)", ""),
                (.post, "\(devices)/import", #"{"token":"\#(APIHarness.token(2))"}"#),
                (.post, "/v1/admin/prune", #"{"notRegisteredSince":"2100-01-01T00:00:00Z"}"#),
            ] {
                let reply = try await h.request(method, path, key: h.marketingKey, body: body)
                #expect(reply.status == .forbidden && reply.problemSlug == "forbidden", "\(method) \(path)")
            }
            let appPrune = try await h.request(.post, "/v1/admin/prune", key: h.appKey, body: #"{"notRegisteredSince":"2100-01-01T00:00:00Z"}"#)
            #expect(appPrune.status == .forbidden)
            #expect(try await h.devicesSnapshot() == before)
        }
    }

    @Test func logsNeverContainATokenOrAnAPIKey() async throws {
        try await APIHarness.with { h in
            let token = APIHarness.token(42)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.appKey, body: #"{"languages":["en"]}"#)
            _ = try await h.request(.put, "\(devices)/\(token)", key: h.appKey, body: #"{"languages":["??"]}"#)
            _ = try await h.request(.get, "\(devices)/\(token)zz", key: h.appKey)
            _ = try await h.request(.get, "\(devices)/\(token)", key: h.adminKey + "x")
            _ = try await h.request(.post, "\(devices)/import", key: h.appKey, body: #"{"token":"\#(token)"}"# + "\nnot json\n")
            let text = h.logs.text
            #expect(text.contains("request"))  // the request log is there
            for secret in [token, h.appKey, h.adminKey, String(h.appKey.dropFirst(11))] {
                #expect(!text.contains(secret))
            }
        }
    }
}
