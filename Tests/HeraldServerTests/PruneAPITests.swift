import Foundation
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

@Suite struct PruneAPITests {
    @Test(arguments: CitusTestDatabase.engines) func dryRunCountsWhatTheRealPruneDeletes(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            for n in 1...9 {
                let bundleID = n <= 7 ? APIHarness.bundleID : APIHarness.otherBundleID
                _ = try await h.request(.put, "/v1/apps/\(bundleID)/devices/\(APIHarness.token(n))", key: h.adminKey, body: "{}")
            }
            try await h.store.client.query(
                """
                UPDATE devices SET invalidated_at = now() - interval '40 days', invalidation_reason =
                    CASE WHEN id % 2 = 0 THEN 'Unregistered' ELSE 'BadDeviceToken' END
                WHERE id <= 5 OR id = 8
                """)
            let body =
                #"{"app":"\#(APIHarness.bundleID)","invalidatedBefore":"\#(Date(timeIntervalSinceNow: -86_400 * 30).formatted(.iso8601))","dryRun":true}"#
            let dry = try await h.request(.post, "/v1/admin/prune", key: h.adminKey, body: body)
            #expect(dry.status == .ok)
            #expect(dry.json["total"] as? Int == 5)
            #expect(dry.json["byReason"] as? [String: Int] == ["Unregistered": 2, "BadDeviceToken": 3])
            #expect(try await h.deviceCount() == 9)

            let real = try await h.request(.post, "/v1/admin/prune", key: h.adminKey, body: body.replacingOccurrences(of: "true", with: "false"))
            #expect(real.json["byReason"] as? [String: Int] == dry.json["byReason"] as? [String: Int])
            #expect(real.json["batches"] as? Int == 3)  // batch size 2 in the harness
            #expect(try await h.deviceCount() == 4)
            // One entry per run, and one per batch committed with that batch's deletions.
            let audit = try await h.store.client.query(
                "SELECT action, count(*), sum((details->>'total')::int) FROM audit_log WHERE action LIKE 'devices.prune%' GROUP BY action ORDER BY action"
            ).collect()
            let rows = try audit.map { try $0.decode((String, Int64, Int64).self) }
            #expect(rows.map(\.0) == ["devices.prune", "devices.prune.batch", "devices.prune.dry-run"])
            #expect(rows.map(\.1) == [1, 3, 1])
            #expect(rows.map(\.2) == [5, 5, 5])
        }
    }

    @Test(arguments: [
        (#"{}"#, "invalidatedBefore"),
        (#"{"invalidatedBefore":"last week"}"#, "invalidatedBefore"),
        (#"{"notRegisteredSince":12}"#, "notRegisteredSince"),
        (#"{"notRegisteredSince":"2026-01-01T00:00:00Z","dryRun":"yes"}"#, "dryRun"),
        (#"{"notRegisteredSince":"2026-01-01T00:00:00Z","everything":true}"#, "everything"),
        (#"{"notRegisteredSince":"2999-01-01T00:00:00Z"}"#, "notRegisteredSince"),
        (#"{"invalidatedBefore":"2999-01-01T00:00:00Z"}"#, "invalidatedBefore"),
        (#"{"notRegisteredSince":"\#(Date(timeIntervalSinceNow: -86_400).formatted(.iso8601))"}"#, "notRegisteredSince"),
        (#"{"notRegisteredSince":"2026-01-01T00:00:00Z","app":"com.example\u0000"}"#, "app"),
    ])
    func badPruneRequestsDeleteNothing(body: String, field: String) async throws {
        try await APIHarness.with { h in
            _ = try await h.request(.put, "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(1))", key: h.adminKey, body: "{}")
            let reply = try await h.request(.post, "/v1/admin/prune", key: h.adminKey, body: body)
            #expect(reply.status == .unprocessableContent && reply.problemSlug == "invalid-field")
            #expect(reply.json["field"] as? String == field)
            #expect(try await h.deviceCount() == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func pruneOfAnUnknownAppNamesTheAppField(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let reply = try await h.request(
                .post, "/v1/admin/prune", key: h.adminKey, body: #"{"app":"com.nope","notRegisteredSince":"2026-01-01T00:00:00Z"}"#)
            #expect(reply.status == .notFound && reply.problemSlug == "unknown-app")
            #expect(reply.json["field"] as? String == "app")
        }
    }
}
