import APNSCore
import Foundation
import HeraldTemplates
import HeraldTestSupport
import Hummingbird
import PostgresNIO
import Testing

@testable import HeraldServer

@Suite struct TemplateAPITests {
    static let templatesDirectory = TestDatabase.repositoryRoot.appendingPathComponent("templates")

    /// A template shipped in `templates/`, as a `PUT` body.
    static func shipped(_ name: String) throws -> TemplateDocument {
        try TemplateLoader.loadTemplate(folder: templatesDirectory.appendingPathComponent(name))
    }

    static func body(_ document: TemplateDocument) -> String {
        String(decoding: document.canonicalJSON(), as: UTF8.self)
    }

    static func put(_ h: APIHarness, _ name: String) async throws -> Reply {
        try await h.request(.put, "/v1/templates/\(name)", key: h.marketingKey, body: body(try shipped(name)))
    }

    static func versionCount(_ h: APIHarness) async throws -> Int {
        let rows = try await h.store.client.query("SELECT count(*) FROM template_versions").collect()
        return Int(try rows.first!.decode(Int64.self))
    }

    @Test(arguments: CitusTestDatabase.engines) func putCreatesAVersionKeepsItWhenUnchangedAndAddsOneWhenChanged(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            var document = try Self.shipped("welcome")
            let created = try await h.request(.put, "/v1/templates/welcome", key: h.marketingKey, body: Self.body(document))
            #expect(created.status == .created)
            #expect(created.json["name"] as? String == "welcome" && created.json["version"] as? Int == 1)
            let hash = try #require(created.json["contentHash"] as? String)
            #expect(hash.count == 64)
            #expect(created.json["defaultLanguage"] as? String == "en")
            #expect((created.json["languages"] as? [String])?.contains("zh-Hant") == true)
            #expect(created.json["createdBy"] as? String == String(h.marketingKey.prefix(11)))
            #expect((created.json["document"] as? [String: Any])?["clientFallback"] as? Bool == true)

            let same = try await h.request(.put, "/v1/templates/welcome", key: h.adminKey, body: Self.body(document))
            #expect(same.status == .ok && same.json["version"] as? Int == 1 && same.json["contentHash"] as? String == hash)

            // Without a name in the body, the path names the template: still the same content.
            guard case .object(var members) = try JSONDecoder().decode(PayloadValue.self, from: document.canonicalJSON()) else {
                Issue.record("the document is not an object")
                return
            }
            members["name"] = nil
            let nameless = String(decoding: try JSONEncoder().encode(PayloadValue.object(members)), as: UTF8.self)
            let unnamed = try await h.request(.put, "/v1/templates/welcome", key: h.marketingKey, body: nameless)
            #expect(unnamed.status == .ok && unnamed.json["version"] as? Int == 1)

            document.strings["en"]?["WELCOME_TITLE"] = "Welcome aboard %@"
            let changed = try await h.request(.put, "/v1/templates/welcome", key: h.marketingKey, body: Self.body(document))
            #expect(changed.status == .created && changed.json["version"] as? Int == 2)
            #expect(changed.json["contentHash"] as? String != hash)
            #expect(try await Self.versionCount(h) == 2)
            let audited = try await h.store.client.query(
                "SELECT count(*) FROM audit_log WHERE action = 'template.version'"
            ).collect()
            #expect(try audited.first?.decode(Int64.self) == 2)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func getListsTemplatesShowsVersionsNewestFirstAndReadsOldVersions(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            #expect(try await Self.put(h, "welcome").status == .created)
            #expect(try await Self.put(h, "flash-sale").status == .created)
            var document = try Self.shipped("welcome")
            document.strings["de"]?["WELCOME_TITLE"] = "Herzlich willkommen bei %@"
            _ = try await h.request(.put, "/v1/templates/welcome", key: h.marketingKey, body: Self.body(document))

            let list = try await h.request(.get, "/v1/templates", key: h.marketingKey)
            #expect(list.status == .ok)
            let templates = list.json["templates"] as? [[String: Any]] ?? []
            #expect(templates.map { $0["name"] as? String } == ["flash-sale", "welcome"])
            #expect(templates.map { $0["latestVersion"] as? Int } == [1, 2])
            #expect(templates.map { $0["versionCount"] as? Int } == [1, 2])
            #expect((templates.last?["languages"] as? [String])?.count == 14)

            let shown = try await h.request(.get, "/v1/templates/welcome", key: h.adminKey)
            #expect(shown.status == .ok)
            let latest = shown.json["latest"] as? [String: Any]
            #expect(latest?["version"] as? Int == 2)
            let strings = (latest?["document"] as? [String: Any])?["strings"] as? [String: Any]
            #expect((strings?["de"] as? [String: Any])?["WELCOME_TITLE"] as? String == "Herzlich willkommen bei %@")
            let versions = shown.json["versions"] as? [[String: Any]] ?? []
            #expect(versions.map { $0["version"] as? Int } == [2, 1])
            #expect(versions.allSatisfy { ($0["contentHash"] as? String)?.count == 64 && $0["createdAt"] is String })

            let first = try await h.request(.get, "/v1/templates/welcome/versions/1", key: h.marketingKey)
            #expect(first.status == .ok && first.json["version"] as? Int == 1)
            let firstStrings = (first.json["document"] as? [String: Any])?["strings"] as? [String: Any]
            #expect((firstStrings?["de"] as? [String: Any])?["WELCOME_TITLE"] as? String != "Herzlich willkommen bei %@")

            let noVersion = try await h.request(.get, "/v1/templates/welcome/versions/9", key: h.marketingKey)
            #expect(noVersion.status == .notFound && noVersion.problemSlug == "unknown-template-version")
            #expect(noVersion.json["field"] as? String == "version")
            let badVersion = try await h.request(.get, "/v1/templates/welcome/versions/latest", key: h.marketingKey)
            #expect(badVersion.status == .unprocessableContent && badVersion.json["field"] as? String == "version")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func unknownTemplatesAre404(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let preview = #"{"recipients":[{"languages":["en"]}]}"#
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/templates/nope", nil), (.get, "/v1/templates/nope/versions/1", nil),
                (.post, "/v1/templates/nope/preview", preview),
            ]
            for (method, path, body) in requests {
                let reply = try await h.request(method, path, key: h.marketingKey, body: body)
                #expect(reply.status == .notFound && reply.problemSlug == "unknown-template", "\(path)")
                #expect(reply.json["field"] as? String == "name", "\(path)")
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func appKeysCannotUseTemplates(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            #expect(try await Self.put(h, "welcome").status == .created)
            let flashSale = Self.body(try Self.shipped("flash-sale"))
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/templates", nil), (.get, "/v1/templates/welcome", nil), (.get, "/v1/templates/welcome/versions/1", nil),
                (.put, "/v1/templates/flash-sale", flashSale),
                (.post, "/v1/templates/welcome/preview", #"{"recipients":[{"languages":["en"]}]}"#),
            ]
            for (method, path, body) in requests {
                let reply = try await h.request(method, path, key: h.appKey, body: body)
                #expect(reply.status == .forbidden && reply.problemSlug == "forbidden", "\(method) \(path)")
            }
            #expect(try await Self.versionCount(h) == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func anInvalidTemplateGets422ListingEveryProblemAndStoresNothing(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { h in
            let body = """
                {"defaultLanguage":"en","body":{"key":"BODY","arguments":["vars.count"]},
                 "payload":{"pushType":"fax","badge":-1},
                 "strings":{"en":{"BODY":"%@ items"},"de":{"OTHER":"x"},"fr":{"BODY":"%1$@ %2$@"}}}
                """
            let reply = try await h.request(.put, "/v1/templates/promo", key: h.marketingKey, body: body)
            #expect(reply.status == .unprocessableContent && reply.problemSlug == "invalid-field")
            #expect(reply.headers[.contentType] == "application/problem+json")
            let errors = reply.json["errors"] as? [[String: Any]] ?? []
            let fields = errors.compactMap { $0["field"] as? String }
            #expect(errors.count >= 4, "\(reply.body)")
            #expect(Set(fields).isSuperset(of: ["payload.pushType", "payload.badge", "strings.de.BODY", "strings.fr.BODY"]))
            #expect(errors.allSatisfy { ($0["message"] as? String)?.isEmpty == false })
            #expect(reply.json["field"] as? String == fields.first)
            #expect(try await Self.versionCount(h) == 0)
        }
    }

    struct BadPut: Sendable, CustomStringConvertible {
        var description: String
        var path = "/v1/templates/welcome"
        /// Nil sends the shipped welcome template (named welcome).
        var body: String?
        var status: HTTPResponse.Status
        var slug: String
        var field: String?
    }

    static let badPuts: [BadPut] = [
        BadPut(description: "malformed JSON", body: #"{"name":"welcome""#, status: .badRequest, slug: "invalid-request"),
        BadPut(description: "not an object", body: #"["welcome"]"#, status: .badRequest, slug: "invalid-request"),
        BadPut(
            description: "name not the path's", path: "/v1/templates/other", status: .unprocessableContent, slug: "invalid-field",
            field: "name"),
        BadPut(
            description: "name not a string", body: #"{"name":7}"#, status: .unprocessableContent, slug: "invalid-field",
            field: "name"),
        BadPut(
            description: "path name invalid", path: "/v1/templates/Bad_Name",
            body: #"{"defaultLanguage":"en","body":{"key":"B"},"strings":{"en":{"B":"x"}}}"#, status: .unprocessableContent,
            slug: "invalid-field", field: "name"),
        BadPut(
            description: "misspelt key", body: #"{"defaultLanguage":"en","bdoy":{"key":"B"},"strings":{"en":{"B":"x"}}}"#,
            status: .unprocessableContent, slug: "invalid-field", field: "bdoy"),
    ]

    @Test(arguments: badPuts)
    func badPutsStoreNothing(_ c: BadPut) async throws {
        try await APIHarness.with { h in
            let sent: String
            if let body = c.body { sent = body } else { sent = Self.body(try Self.shipped("welcome")) }
            let reply = try await h.request(.put, c.path, key: h.marketingKey, body: sent)
            #expect(reply.status == c.status && reply.problemSlug == c.slug, "\(reply.body)")
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(reply.json["field"] as? String == c.field)
            #expect(try await Self.versionCount(h) == 0)
        }
    }
}
