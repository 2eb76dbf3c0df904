import Foundation
import HeraldConsole
import HeraldCore
import Testing

@testable import HeraldServer

/// The API keys page: an admin creates a key (its secret shown once) and revokes it; both take
/// effect on the API at once; bad input is refused and changes nothing; others are refused.
@Suite struct ConsoleKeysTests {
    @Test func anAdminCreatesAKeyThatWorksAndRevokesIt() async throws {
        try await APIHarness.with { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            #expect(try await admin.get("/console/keys").status == .ok)
            let created = try await admin.post("/console/keys", [("intent", "create"), ("role", "marketing"), ("name", "ci <deploy>")])
            #expect(created.status == .ok)
            let secret = try #require(created.body.firstMatch(of: /<code>(hk_[0-9a-f]{64})<\/code>/)?.1).description
            #expect(created.body.contains("ci &lt;deploy&gt;") && !created.body.contains("ci <deploy>"))
            #expect(try await harness.request(.get, "/v1/campaigns", key: secret).status == .ok)
            // Shown once: the list has only the prefix.
            let listed = try await admin.get("/console/keys")
            #expect(!listed.body.contains(secret) && listed.body.contains(String(secret.prefix(11)) + "…"))

            let key = try #require(try await harness.store.keys.list().first { $0.prefix == String(secret.prefix(11)) })
            let revoked = try await admin.post("/console/keys", [("intent", "revoke"), ("key", String(key.id))])
            #expect(revoked.status == .ok && revoked.body.contains("Key \(key.id) revoked"))
            #expect(try await harness.request(.get, "/v1/campaigns", key: secret).status == .unauthorized)
            #expect(try await admin.post("/console/keys", [("intent", "revoke"), ("key", String(key.id))]).status == .notFound)

            let before = try await harness.store.keys.list().count
            for fields in [
                [("intent", "create"), ("role", "app")], [("intent", "create"), ("role", "root")],
                [("intent", "create"), ("role", "app"), ("app", "com.example.none")],
                [("intent", "create"), ("role", "admin"), ("expires", "2001-01-01")],
                [("intent", "create"), ("role", "admin"), ("expires", "soon")],
                [("intent", "create"), ("role", "admin"), ("name", "a\u{0}b")],
            ] {
                let reply = try await admin.post("/console/keys", fields)
                #expect(reply.status == .unprocessableContent, "\(fields)")
                #expect(reply.body.contains("role=\"alert\""), "\(fields)")
            }
            #expect(try await admin.post("/console/keys", [("intent", "explode")]).status == .badRequest)
            #expect(try await admin.post("/console/keys", [("intent", "revoke"), ("key", "x")]).status == .badRequest)
            #expect(try await harness.store.keys.list().count == before)

            let appKey = try await admin.post("/console/keys", [("intent", "create"), ("role", "app"), ("app", APIHarness.bundleID)])
            #expect(appKey.status == .ok && appKey.body.contains("(app)"))

            for (email, role) in [("ana@example.com", ConsoleRole.marketing), ("vic@example.com", .viewer)] {
                _ = try await ConsoleBrowser.addUser(harness, email, role: role)
                var other = ConsoleBrowser(harness)
                _ = try await other.signIn(email)
                #expect(try await other.get("/console/keys").status == .forbidden, "\(email)")
                #expect(try await other.post("/console/keys", [("intent", "create"), ("role", "admin")]).status == .forbidden, "\(email)")
            }
            #expect(try await harness.store.keys.list().count == before + 1)
        }
    }
}
