import Foundation
import HeraldConsole
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// The apps pages: an admin adds a signing key and a certificate by file, makes a standby
/// active and retires the old one; bad files and bad states are refused and change nothing;
/// marketing users and viewers are refused.
@Suite struct ConsoleAppsTests {
    static let path = "/console/apps/\(APIHarness.bundleID)"

    @Test func anAdminRotatesASigningKeyAndAddsACertificateByFile() async throws {
        try await APIHarness.with { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            let list = try await admin.get("/console/apps")
            #expect(list.status == .ok && list.body.contains("data-app=\"\(APIHarness.bundleID)\"") && list.body.contains(APIHarness.otherBundleID))
            #expect(try await admin.get(Self.path).status == .ok)
            let original = try #require(try await harness.store.apps.credentials(appID: harness.app.id).first)

            let pem = TestSigningKey.pem()
            let added = try await admin.postMultipart(
                Self.path, [("intent", "add"), ("kind", "token"), ("keyID", "NEWKEY1234")],
                files: [("p8", "AuthKey_NEWKEY1234.p8", Array(pem.utf8)), ("p12", "", [])])
            #expect(added.status == .ok && added.body.contains("Added key NEWKEY1234 as standby"))
            #expect(!added.body.contains("PRIVATE KEY"))
            var credentials = try await harness.store.apps.credentials(appID: harness.app.id)
            let new = try #require(credentials.first { $0.keyID == "NEWKEY1234" })
            #expect(new.state == .standby)

            let activated = try await admin.post(Self.path, [("intent", "activate"), ("credential", String(new.id))])
            #expect(activated.status == .ok && activated.body.contains("key NEWKEY1234 is now active"))
            credentials = try await harness.store.apps.credentials(appID: harness.app.id)
            #expect(credentials.first { $0.id == new.id }?.state == .active)
            #expect(credentials.first { $0.id == original.id }?.state == .standby)
            let retired = try await admin.post(Self.path, [("intent", "retire"), ("credential", String(original.id))])
            #expect(retired.status == .ok && retired.body.contains("retired"))
            #expect(try await harness.store.apps.activeCredential(appID: harness.app.id)?.credential.keyID == "NEWKEY1234")

            let certificate = try TestClientCertificate.make(uid: APIHarness.bundleID)
            let withCertificate = try await admin.postMultipart(
                Self.path, [("intent", "add"), ("kind", "certificate"), ("password", "hunter2"), ("activate", "on")],
                files: [("p12", "push.p12", try certificate.pkcs12(password: "hunter2"))])
            #expect(withCertificate.status == .ok && withCertificate.body.contains("as active"))
            #expect(try await harness.store.apps.activeCredential(appID: harness.app.id)?.credential.kind == .certificate)
            #expect(withCertificate.body.contains("UID=\(APIHarness.bundleID)"))
            let audited = try await harness.store.audit.list(AuditQuery(appID: harness.app.id)).entries.map(\.action)
            #expect(audited.contains("credential.add") && audited.contains("credential.add+activate"))
            #expect(audited.contains("credential.activate") && audited.contains("credential.retire"))
            #expect(audited.allSatisfy { !$0.isEmpty })
        }
    }

    @Test func badFilesAndStatesAreRefusedAndChangeNothing() async throws {
        try await APIHarness.with { harness in
            _ = try await ConsoleBrowser.addUser(harness, "root@example.com", role: .admin)
            var admin = ConsoleBrowser(harness)
            _ = try await admin.signIn("root@example.com")
            _ = try await admin.get(Self.path)
            let before = try await harness.store.apps.credentials(appID: harness.app.id)
            let active = try #require(before.first { $0.state == .active })
            let p12 = try TestClientCertificate.make(uid: APIHarness.bundleID).pkcs12(password: "right")
            let other = try TestClientCertificate.make(uid: "com.example.someone-else").pkcs12(password: "right")
            let expired = try TestClientCertificate.make(
                uid: APIHarness.bundleID, notValidBefore: Date().addingTimeInterval(-86_400 * 10), notValidAfter: Date().addingTimeInterval(-86_400)
            ).pkcs12(password: "right")
            let key = Array(TestSigningKey.pem().utf8)
            let cases: [(String, [(String, String)], [(name: String, filename: String, bytes: [UInt8])])] = [
                ("keyID", [("kind", "token")], [("p8", "k.p8", key)]),
                ("keyID", [("kind", "token"), ("keyID", "short")], [("p8", "k.p8", key)]),
                ("p8", [("kind", "token"), ("keyID", "ABC123DEFG")], []),
                ("p8", [("kind", "token"), ("keyID", "ABC123DEFG")], [("p8", "k.p8", Array("-----BEGIN NOTHING-----".utf8))]),
                ("p8", [("kind", "token"), ("keyID", "ABC123DEFG")], [("p8", "k.p8", [0xFF, 0x00, 0xC3])]),
                ("p12", [("kind", "certificate")], []),
                ("password", [("kind", "certificate"), ("password", "wrong")], [("p12", "p.p12", p12)]),
                ("certificate", [("kind", "certificate"), ("password", "right")], [("p12", "p.p12", other)]),
                ("certificate", [("kind", "certificate"), ("password", "right")], [("p12", "p.p12", expired)]),
                ("certificate", [("kind", "certificate")], [("p12", "p.p12", Array(repeating: 0x41, count: 100))]),
                ("p12", [("kind", "certificate")], [("p12", "p.p12", Array(repeating: 0x41, count: 40_000))]),
                ("kind", [("kind", "sms")], []),
            ]
            for (field, fields, files) in cases {
                let reply = try await admin.postMultipart(Self.path, [("intent", "add")] + fields, files: files)
                #expect(reply.status == .unprocessableContent, "\(field) \(fields)")
                #expect(reply.body.contains("role=\"alert\">\(field):"), "\(field) \(fields)")
                #expect(!reply.body.contains("BEGIN"), "\(field)")
            }
            let conflict = try await admin.post(Self.path, [("intent", "retire"), ("credential", String(active.id))])
            #expect(conflict.status == .conflict && conflict.body.contains("role=\"alert\""))
            #expect(try await admin.post(Self.path, [("intent", "activate"), ("credential", "999999")]).status == .notFound)
            #expect(try await admin.post(Self.path, [("intent", "activate"), ("credential", "x")]).status == .badRequest)
            #expect(try await admin.post(Self.path, [("intent", "explode")]).status == .badRequest)
            #expect(try await admin.postRaw(Self.path, body: "--x\r\nbroken").status == .forbidden)
            // A body that is not the multipart it says, and one too large for a form: refused, not a 500.
            let malformed = try await admin.postRaw(
                Self.path, body: "--B\r\nContent-Disposition: form-data; name=\"intent\"\r\n\r\nadd", contentType: "multipart/form-data; boundary=B")
            #expect(malformed.status == .badRequest && malformed.body.contains("could not be read"))
            let huge = try await admin.postMultipart(
                Self.path, [("intent", "add"), ("kind", "certificate")], files: [("p12", "big.p12", Array(repeating: 0x41, count: 300 * 1024))])
            #expect(huge.status == .contentTooLarge)
            #expect(try await admin.get("/console/apps/com.example.none").status == .notFound)
            #expect(try await admin.post("/console/apps/com.example.none", [("intent", "retire")]).status == .notFound)
            #expect(try await harness.store.apps.credentials(appID: harness.app.id) == before)

            for (email, role) in [("ana@example.com", ConsoleRole.marketing), ("vic@example.com", .viewer)] {
                _ = try await ConsoleBrowser.addUser(harness, email, role: role)
                var someone = ConsoleBrowser(harness)
                _ = try await someone.signIn(email)
                #expect(try await someone.get("/console/apps").status == .forbidden, "\(email)")
                #expect(try await someone.get(Self.path).status == .forbidden, "\(email)")
                let campaigns = try await someone.get("/console/campaigns")
                #expect(!campaigns.body.contains("href=\"/console/apps\""), "\(email)")
                let attempt = try await someone.postMultipart(
                    Self.path, [("intent", "add"), ("kind", "token"), ("keyID", "ABC123DEFG")], files: [("p8", "k.p8", key)])
                #expect(attempt.status == .forbidden, "\(email)")
            }
            #expect(try await harness.store.apps.credentials(appID: harness.app.id) == before)
        }
    }
}
