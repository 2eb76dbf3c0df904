import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct DeviceRepositoryTests {
    @Test(arguments: CitusTestDatabase.engines) func registerCreatesThenUpdatesAndRevivesAnInvalidatedToken(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let token = StoreFixture.token(1)
            let (first, created) = try await f.devices.register(
                appID: f.app.id, token: token, registration: StoreFixture.registration(languages: ["fr-CA", "en"]))
            #expect(created)
            #expect(first.token == token)
            #expect(first.languages.map(\.value) == ["fr-CA", "en"])
            #expect((0..<256).contains(first.bucket))

            try await f.invalidate(token, reason: "Unregistered", daysAgo: 1)
            #expect(try await f.devices.find(appID: f.app.id, token: token)?.isValid == false)

            let (second, createdAgain) = try await f.devices.register(
                appID: f.app.id, token: token, registration: StoreFixture.registration(languages: ["de"], userID: "u-1"))
            #expect(!createdAgain)
            #expect(second.id == first.id)
            #expect(second.isValid && second.invalidationReason == nil)
            #expect(second.languages.map(\.value) == ["de"])
            #expect(second.userID == "u-1")
            #expect(second.registeredAt >= first.registeredAt)
            #expect(second.bucket == first.bucket)
        }
    }

    /// A column value no Herald writes (an edit behind Herald's back, with the CHECK dropped)
    /// fails the read and names the column, instead of being read as some default.
    @Test(arguments: CitusTestDatabase.engines) func anUnknownEnumValueInARowFailsLoudly(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let token = StoreFixture.token(1)
            _ = try await f.devices.register(appID: f.app.id, token: token, registration: StoreFixture.registration())
            try await f.client.query("ALTER TABLE devices DROP CONSTRAINT devices_environment_check")
            try await f.client.query("UPDATE devices SET environment = 'staging'")
            do {
                _ = try await f.devices.find(appID: f.app.id, token: token)
                Issue.record("a device with environment 'staging' was read")
            } catch {
                #expect("\(error)".contains("devices.environment holds \"staging\""))
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func deleteRemovesOnlyThatToken(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            for n in 1...2 {
                _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(n), registration: StoreFixture.registration())
            }
            #expect(try await f.devices.delete(appID: f.app.id, token: StoreFixture.token(1)))
            #expect(try await !f.devices.delete(appID: f.app.id, token: StoreFixture.token(1)))
            #expect(try await f.devices.find(appID: f.app.id, token: StoreFixture.token(2)) != nil)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func listPagesByKeysetAndFilters(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            for n in 1...25 {
                let registration = StoreFixture.registration(
                    languages: n % 2 == 0 ? ["ja", "en"] : ["en"], userID: n % 5 == 0 ? "five" : nil)
                _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(n), registration: registration)
            }
            try await f.invalidate(StoreFixture.token(3), reason: "BadDeviceToken", daysAgo: 0)

            var seen = [Int64]()
            var cursor: Int64?
            repeat {
                let page = try await f.devices.list(appID: f.app.id, query: DeviceListQuery(cursor: cursor, limit: 10))
                seen += page.devices.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 25 && seen == seen.sorted())

            let japanese = try await f.devices.list(appID: f.app.id, query: DeviceListQuery(language: LanguageTag("ja")))
            #expect(japanese.devices.count == 12)
            let five = try await f.devices.list(appID: f.app.id, query: DeviceListQuery(userID: "five"))
            #expect(five.devices.count == 5)
            let invalid = try await f.devices.list(appID: f.app.id, query: DeviceListQuery(valid: false))
            #expect(invalid.devices.map(\.token) == [StoreFixture.token(3)])
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func importBatchCountsCreatedAndUpdated(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(1), registration: StoreFixture.registration())
            let items = (1...50).map {
                DeviceImportItem(
                    token: StoreFixture.token($0),
                    registration: StoreFixture.registration(
                        languages: $0 == 7 ? [] : ["pt-BR", "pt-PT"], userID: "user-\($0)", attributes: ["n": .int($0)]))
            }
            let counts = try await f.devices.importBatch(appID: f.app.id, items: items)
            #expect(counts == DeviceImportCounts(created: 49, updated: 1))
            let seven = try #require(try await f.devices.find(appID: f.app.id, token: StoreFixture.token(7)))
            #expect(seven.languages.isEmpty)
            let eight = try #require(try await f.devices.find(appID: f.app.id, token: StoreFixture.token(8)))
            #expect(eight.languages.map(\.value) == ["pt-BR", "pt-PT"])
            #expect(eight.attributes == ["n": .int(8)])
            #expect(eight.timeZone == "Europe/Paris" && eight.userID == "user-8")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func pruneDryRunCountsWhatTheRealRunDeletesInBatches(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            for n in 1...20 {
                _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(n), registration: StoreFixture.registration())
            }
            for n in 1...7 { try await f.invalidate(StoreFixture.token(n), reason: "Unregistered", daysAgo: 40) }
            for n in 8...10 { try await f.invalidate(StoreFixture.token(n), reason: "BadDeviceToken", daysAgo: 40) }
            try await f.invalidate(StoreFixture.token(11), reason: "Unregistered", daysAgo: 1)  // too recent
            try await f.client.query(
                "UPDATE devices SET registered_at = now() - interval '400 days' WHERE token = \(ByteBuffer(bytes: StoreFixture.token(12).bytes))")

            let cutoff = Date(timeIntervalSinceNow: -30 * 86_400)
            let yearAgo = Date(timeIntervalSinceNow: -365 * 86_400)
            let dry = try await f.pruner(batchSize: 3).prune(
                try PruneRequest(invalidatedBefore: cutoff, notRegisteredSince: yearAgo, appID: f.app.id, dryRun: true), actor: "test")
            #expect(dry.byReason == ["Unregistered": 7, "BadDeviceToken": 3, "stale": 1])
            #expect(try await f.count("SELECT count(*) FROM devices") == 20)

            let real = try await f.pruner(batchSize: 3).prune(
                try PruneRequest(invalidatedBefore: cutoff, notRegisteredSince: yearAgo, appID: f.app.id, dryRun: false), actor: "test")
            #expect(real.byReason == dry.byReason)
            #expect(real.batches == 4)
            #expect(try await f.count("SELECT count(*) FROM devices") == 9)
            // A summary per run, and an entry per batch written with that batch's deletions.
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action IN ('devices.prune', 'devices.prune.dry-run')") == 2)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'devices.prune.batch'") == 4)
        }
    }

    /// A registration that commits while a prune runs wins: the prune chose its victims before
    /// the registration committed, but re-checks them on the rows it deletes.
    @Test(arguments: CitusTestDatabase.engines) func pruneKeepsADeviceRegisteredAgainWhileItRuns(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            for n in 1...3 {
                _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(n), registration: StoreFixture.registration())
                try await f.invalidate(StoreFixture.token(n), reason: "Unregistered", daysAgo: 40)
            }
            let returning = ByteBuffer(bytes: StoreFixture.token(2).bytes)
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let (release, releasing) = AsyncStream.makeStream(of: Void.self)
            // Device 2 registers again, as the registration route does, and holds its transaction open.
            let registration = Task {
                try await f.client.withConnection { connection in
                    _ = try await connection.query("BEGIN", logger: TestDatabase.logger).collect()
                    _ = try await connection.query(
                        """
                        UPDATE devices SET registered_at = now(), invalidated_at = NULL, invalidation_reason = NULL,
                            apns_unregistered_at = NULL, updated_at = now()
                        WHERE app_id = \(f.app.id) AND token = \(returning)
                        """, logger: TestDatabase.logger
                    ).collect()
                    holding.yield()
                    var waiting = release.makeAsyncIterator()
                    _ = await waiting.next()
                    _ = try await connection.query("COMMIT", logger: TestDatabase.logger).collect()
                }
            }
            var heldIterator = held.makeAsyncIterator()
            _ = await heldIterator.next()
            let request = try PruneRequest(
                invalidatedBefore: Date(timeIntervalSinceNow: -30 * 86_400), notRegisteredSince: nil, appID: f.app.id, dryRun: false)
            let prune = Task { try await f.pruner(batchSize: 10).prune(request, actor: "test") }
            // The prune has chosen device 2 and waits for its row lock.
            try await waitUntil("the prune to wait for the registration's lock") {
                try await f.count(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%victims%'
                    """) == 1
            }
            releasing.yield()
            try await registration.value
            let result = try await prune.value
            #expect(result.byReason == ["Unregistered": 2])
            #expect(
                try await f.count(
                    "SELECT count(*) FROM devices WHERE token = '\\x\(StoreFixture.token(2).hex)' AND invalidated_at IS NULL") == 1)
            #expect(try await f.count("SELECT count(*) FROM devices") == 1)
        }
    }
}
