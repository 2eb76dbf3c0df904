import Foundation
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

@Suite struct DeviceAPITests {
    let path = "/v1/apps/\(APIHarness.bundleID)/devices"

    @Test(arguments: CitusTestDatabase.engines) func registerCreatesThenUpdatesAndShowsOnlyTheTokenSuffix(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(1)
            let body = """
                {"environment":"sandbox","languages":["zh_hant_hk","en-GB"],
                 "authorization":{"status":"authorized","sound":false,"timeSensitive":true},
                 "timeZone":"Asia/Hong_Kong","userID":"user-1","attributes":{"plan":"pro","age":31}}
                """
            let created = try await h.request(.put, "\(path)/\(token)", key: h.appKey, body: body)
            #expect(created.status == .created)
            #expect(created.json["tokenSuffix"] as? String == String(token.suffix(8)))
            #expect(!created.body.contains(token))
            #expect(created.json["languages"] as? [String] == ["zh-Hant-HK", "en-GB"])
            #expect(created.json["environment"] as? String == "sandbox")
            #expect(created.json["valid"] as? Bool == true)
            let authorization = created.json["authorization"] as? [String: Any]
            #expect(authorization?["alert"] as? Bool == true)
            #expect(authorization?["sound"] as? Bool == false)
            #expect(authorization?["timeSensitive"] as? Bool == true)
            #expect(authorization?["criticalAlert"] as? Bool == false)

            let updated = try await h.request(.put, "\(path)/\(token.uppercased())", key: h.appKey, body: #"{"languages":["fr"]}"#)
            #expect(updated.status == .ok)
            #expect(updated.json["id"] as? Int == created.json["id"] as? Int)
            #expect(updated.json["environment"] as? String == "production")  // the app's default
            #expect((updated.json["authorization"] as? [String: Any])?["status"] as? String == "notDetermined")

            let shown = try await h.request(.get, "\(path)/\(token)", key: h.marketingKey)
            #expect(shown.status == .ok)
            #expect(shown.json["languages"] as? [String] == ["fr"])
            #expect(try await h.deviceCount() == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func reRegistrationClearsAnInvalidation(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(2)
            _ = try await h.request(.put, "\(path)/\(token)", key: h.appKey, body: "{}")
            try await h.store.client.query(
                "UPDATE devices SET invalidated_at = now(), invalidation_reason = 'Unregistered', apns_unregistered_at = now()")
            let invalid = try await h.request(.get, "\(path)/\(token)", key: h.appKey)
            #expect(invalid.json["valid"] as? Bool == false)
            #expect(invalid.json["invalidationReason"] as? String == "Unregistered")
            let again = try await h.request(.put, "\(path)/\(token)", key: h.appKey, body: "{}")
            #expect(again.status == .ok)
            #expect(again.json["valid"] as? Bool == true)
            #expect(again.json["invalidationReason"] == nil)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func deleteRemovesTheToken(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let token = APIHarness.token(3)
            _ = try await h.request(.put, "\(path)/\(token)", key: h.appKey, body: "{}")
            #expect(try await h.request(.delete, "\(path)/\(token)", key: h.appKey).status == .noContent)
            let gone = try await h.request(.get, "\(path)/\(token)", key: h.appKey)
            #expect(gone.status == .notFound && gone.problemSlug == "not-found")
            #expect(try await h.request(.delete, "\(path)/\(token)", key: h.appKey).status == .notFound)
            #expect(try await h.deviceCount() == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func listIsKeysetPaginatedAndFiltered(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            for n in 1...7 {
                let languages = n <= 3 ? #"["ja","en"]"# : #"["en"]"#
                let user = n == 5 ? #","userID":"u5""# : ""
                _ = try await h.request(.put, "\(path)/\(APIHarness.token(n))", key: h.appKey, body: #"{"languages":\#(languages)\#(user)}"#)
            }
            var cursor: String?
            var ids = [Int]()
            repeat {
                let page = try await h.request(.get, "\(path)?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), key: h.adminKey)
                #expect(page.status == .ok)
                ids += (page.json["devices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil
            #expect(ids.count == 7 && ids == ids.sorted())

            let japanese = try await h.request(.get, "\(path)?language=JA", key: h.marketingKey)
            #expect((japanese.json["devices"] as? [Any])?.count == 3)
            let user = try await h.request(.get, "\(path)?userID=u5&valid=true", key: h.appKey)
            #expect((user.json["devices"] as? [Any])?.count == 1)

            for (query, field) in [
                ("limit=0", "limit"), ("limit=x", "limit"), ("valid=maybe", "valid"), ("cursor=-1", "cursor"),
                ("language=not%20a%20tag", "language"), ("colour=red", "colour"),
            ] {
                let bad = try await h.request(.get, "\(path)?\(query)", key: h.adminKey)
                #expect(bad.status == .unprocessableContent && bad.problemSlug == "invalid-field", "\(query)")
                #expect(bad.json["field"] as? String == field)
                if field == "colour" { #expect(bad.json["detail"] as? String == "unknown query parameter", "\(bad.body)") }
            }
        }
    }
}
