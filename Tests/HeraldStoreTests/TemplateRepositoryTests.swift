import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct TemplateRepositoryTests {
    /// A small template document; HeraldStore stores any JSON object, it does not read templates.
    static func document(_ body: String, name: String = "promo") -> [UInt8] {
        Array(#"{"body":{"key":"BODY"},"defaultLanguage":"en","name":"\#(name)","strings":{"en":{"BODY":"\#(body)"}}}"#.utf8)
    }

    static func repository(_ f: StoreFixture) -> PostgresTemplateRepository {
        PostgresTemplateRepository(client: f.client, logger: TestDatabase.logger)
    }

    static func save(
        _ templates: PostgresTemplateRepository, _ body: String, name: String = "promo", languages: [String] = ["en"]
    ) async throws -> (record: TemplateVersionRecord, created: Bool) {
        try await templates.saveIfChanged(
            name: name, document: document(body, name: name), defaultLanguage: "en", languages: languages, createdBy: "test",
            appID: nil)
    }

    @Test(arguments: CitusTestDatabase.engines) func theFirstSaveIsVersionOneTheSameContentChangesNothingAndNewContentIsVersionTwo(
        onCluster: Bool
    ) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let templates = Self.repository(f)
            let first = try await Self.save(templates, "Hi %@")
            #expect(first.created && first.record.version == 1 && first.record.name == "promo")
            #expect(first.record.contentHash == PostgresTemplateRepository.contentHash(of: Self.document("Hi %@")))
            #expect(first.record.contentHash.count == 64 && first.record.createdBy == "test")
            let stored = try JSONDecoder().decode(PayloadValue.self, from: Data(first.record.document))
            #expect(stored == (try JSONDecoder().decode(PayloadValue.self, from: Data(Self.document("Hi %@")))))

            let again = try await Self.save(templates, "Hi %@")
            #expect(!again.created && again.record == first.record)

            let changed = try await Self.save(templates, "Hello %@", languages: ["de", "en"])
            #expect(changed.created && changed.record.version == 2 && changed.record.languages == ["de", "en"])
            #expect(changed.record.contentHash != first.record.contentHash)

            #expect(try await templates.latest(name: "promo") == changed.record)
            #expect(try await templates.version(name: "promo", version: 1) == first.record)
            #expect(try await templates.version(name: "promo", version: 3) == nil)
            #expect(try await templates.version(name: "promo", version: Int(Int32.max) + 1) == nil)
            #expect(try await templates.latest(name: "nope") == nil)
            #expect(try await f.count("SELECT count(*) FROM template_versions") == 2)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'template.version' AND actor = 'test'") == 2)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func listShowsEachTemplatesLatestVersionAndVersionsAreNewestFirst(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let templates = Self.repository(f)
            #expect(try await templates.list().isEmpty)
            _ = try await Self.save(templates, "A", name: "welcome", languages: ["en"])
            _ = try await Self.save(templates, "A", languages: ["en"])
            _ = try await Self.save(templates, "B", languages: ["en", "fr"])
            _ = try await Self.save(templates, "C", languages: ["en", "fr", "ja"])

            let list = try await templates.list()
            #expect(list.map(\.name) == ["promo", "welcome"])
            #expect(list.map(\.latestVersion) == [3, 1])
            #expect(list.map(\.versionCount) == [3, 1])
            #expect(list.first?.languages == ["en", "fr", "ja"])

            let versions = try await templates.versions(name: "promo")
            #expect(versions.map(\.version) == [3, 2, 1])
            #expect(versions.allSatisfy { $0.name == "promo" })
            #expect(try await templates.versions(name: "nope").isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func concurrentSavesOfTheSameNewContentCreateExactlyOneVersion(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let templates = Self.repository(f)
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await Self.save(templates, "Same").created }
                }
                var created = [Bool]()
                for try await flag in group { created.append(flag) }
                return created
            }
            #expect(created.count == 8 && created.filter { $0 }.count == 1)
            #expect(try await templates.versions(name: "promo").map(\.version) == [1])
            #expect(try await f.count("SELECT count(*) FROM templates") == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func concurrentSavesOfDifferentContentTakeConsecutiveVersions(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let templates = Self.repository(f)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<6 {
                    group.addTask { _ = try await Self.save(templates, "Text \(n)") }
                }
                try await group.waitForAll()
            }
            let versions = try await templates.versions(name: "promo")
            #expect(versions.map(\.version) == [6, 5, 4, 3, 2, 1])
            #expect(Set(versions.map(\.contentHash)).count == 6)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aNameTheSchemaRefusesIsAValidationErrorAndStoresNothing(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let templates = Self.repository(f)
            await #expect(throws: ValidationError.self) { try await Self.save(templates, "x", name: "Not A Name") }
            let stored = try await f.count("SELECT count(*) FROM templates")
            #expect(stored == 0)
        }
    }
}
