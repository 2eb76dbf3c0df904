import APNSCore
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Synchronization
import Testing

@testable import HeraldStore

/// Registrations written together (`RegistrationBatcher`, `RegisterDevices`), on both engines.
@Suite struct RegistrationBatchTests {
    private static func registration(
        _ token: Int, app: Int64, languages: [String] = ["en"], userID: String? = nil, timeZone: String? = "Europe/Paris",
        attributes: [String: PayloadValue] = [:]
    ) -> RegistrationBatcher.Registration {
        let settings = try! DeviceRegistration(
            environment: token % 2 == 0 ? .sandbox : .production, languages: languages,
            authorization: AuthorizationSettings(status: .provisional, alert: token % 3 == 0), timeZone: timeZone, userID: userID,
            attributes: attributes)
        return .init(appID: app, token: StoreFixture.token(token), registration: settings)
    }

    /// What the batcher hands over, batch by batch.
    private final class Batches: Sendable {
        private let seen = Mutex<[[RegistrationBatcher.Registration]]>([])

        /// How many, then the count of each.
        var count: Int { seen.withLock { $0.count } }
        var sizes: [Int] { seen.withLock { $0.map(\.count) } }
        var userIDs: [[String]] { seen.withLock { $0.map { $0.map { $0.registration.userID ?? "" } } } }

        /// Records `batch`; whether it is the first.
        func record(_ batch: [RegistrationBatcher.Registration]) -> Bool {
            seen.withLock {
                $0.append(batch)
                return $0.count == 1
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func registrationsThatArriveTogetherAreWrittenTogetherAndEachGetsItsRow(
        onCluster: Bool
    ) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let batches = Batches()
            let batcher = RegistrationBatcher(writers: 2, batchSize: 16) { batch in
                _ = batches.record(batch)
                return await PostgresDeviceRepository.write(batch, client: f.client, logger: TestDatabase.logger)
            }
            let app = f.app.id
            // Every shape a row can take: no languages, no time zone, a user, nested attributes.
            func wanted(_ n: Int, round: Int) -> RegistrationBatcher.Registration {
                Self.registration(
                    n, app: app, languages: n % 5 == 0 ? [] : ["fr-CA", "en-\(["GB", "US"][round])"],
                    userID: n % 4 == 0 ? nil : "user-\(n)-\(round)\(n % 3 == 0 ? ", \"quoted\" \\ é 🎉 {x}" : "")",
                    timeZone: n % 7 == 0 ? nil : "Asia/Tokyo",
                    attributes: [
                        "n": .int(n), "round": .object(["of": .string("r\(round)")]), "odd": .string("a,b \"c\" \\d\t{e} 🎉"),
                    ])
            }
            for round in 0..<2 {
                let outcomes = await withTaskGroup(of: (Int, RegistrationBatcher.Outcome).self) { group in
                    for n in 1...200 { group.addTask { (n, await batcher.register(wanted(n, round: round))) } }
                    return await group.reduce(into: [Int: RegistrationBatcher.Outcome]()) { $0[$1.0] = $1.1 }
                }
                for n in 1...200 {
                    let (device, created) = try outcomes[n]!.get()
                    let stored = try #require(try await f.devices.find(appID: app, token: StoreFixture.token(n)))
                    let asked = wanted(n, round: round).registration
                    #expect(created == (round == 0))
                    #expect(device.token == StoreFixture.token(n) && device.id == stored.id)
                    #expect(device.languages == asked.languages && stored.languages == asked.languages)
                    #expect(device.userID == asked.userID && stored.userID == asked.userID)
                    #expect(device.timeZone == asked.timeZone && stored.timeZone == asked.timeZone)
                    #expect(device.environment == asked.environment && device.authorization == asked.authorization)
                    #expect(device.attributes == stored.attributes && stored.attributes["round"] == .object(["of": .string("r\(round)")]))
                }
            }
            let written = batches.sizes
            #expect(written.reduce(0, +) == 400)
            #expect(written.max() ?? 0 > 1, "nothing was written together: \(written)")
            #expect(written.allSatisfy { $0 <= 16 })
            let count = try await f.client.query("SELECT count(*) FROM devices WHERE app_id = \(app)").collect().first?.decode(Int64.self)
            #expect(count == 200)
        }
    }

    /// A second registration of a row waits for the statement after the first's, and wins.
    @Test(arguments: CitusTestDatabase.engines) func aRowRegisteredTwiceInOneWaveIsWrittenTwiceInOrder(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let app = f.app.id
            let gate = AsyncStream<Void>.makeStream()
            let batches = Batches()
            let batcher = RegistrationBatcher(writers: 1, batchSize: 64) { batch in
                if batches.record(batch) { for await _ in gate.stream { break } }
                return await PostgresDeviceRepository.write(batch, client: f.client, logger: TestDatabase.logger)
            }
            try await withThrowingTaskGroup(of: (String, RegistrationBatcher.Outcome).self) { group in
                group.addTask { ("held", await batcher.register(Self.registration(9, app: app, userID: "held"))) }
                try await waitUntil("the first statement to start") { batches.count == 1 }
                for (place, (token, user)) in [(1, "a"), (2, "b"), (1, "c"), (3, "d")].enumerated() {
                    group.addTask { (user, await batcher.register(Self.registration(token, app: app, userID: user))) }
                    try await waitUntil("\(user) to wait") { batcher.waitingCount == place + 1 }
                }
                gate.continuation.yield()
                var outcomes = [String: RegistrationBatcher.Outcome]()
                for try await (user, outcome) in group { outcomes[user] = outcome }
                #expect(try outcomes["a"]!.get().created)
                #expect(try !outcomes["c"]!.get().created)
                #expect(try outcomes["c"]!.get().device.userID == "c")
            }
            #expect(batches.userIDs == [["held"], ["a", "b"], ["c", "d"]])
            #expect(try await f.devices.find(appID: app, token: StoreFixture.token(1))?.userID == "c")
        }
    }

    /// A row the database refuses fails alone: the batch is written again one by one.
    @Test(arguments: CitusTestDatabase.engines) func aRowTheDatabaseRefusesFailsAloneAndTheOthersAreWritten(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.client.query("ALTER TABLE devices ADD CONSTRAINT test_refuses_poison CHECK (user_id IS DISTINCT FROM 'poison')")
            let batch = (1...5).map { Self.registration($0, app: f.app.id, userID: $0 == 3 ? "poison" : "u\($0)") }
            let outcomes = await PostgresDeviceRepository.write(batch, client: f.client, logger: TestDatabase.logger)
            #expect(outcomes.count == 5)
            for (n, outcome) in zip(1...5, outcomes) {
                switch outcome {
                case .success(let written):
                    #expect(n != 3 && written.device.userID == "u\(n)" && written.created)
                case .failure(let error):
                    #expect(n == 3)
                    #expect(PostgresErrors.serverError(error)?.serverInfo?[.sqlState] == "23514")
                }
            }
            let count = try await f.client.query("SELECT count(*) FROM devices").collect().first?.decode(Int64.self)
            #expect(count == 4)
        }
    }

    /// Statements that share rows, each with them in another order, never deadlock: a batch is
    /// written in app-then-token order.
    @Test(arguments: CitusTestDatabase.engines) func overlappingBatchesDoNotDeadlock(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let app = f.app.id
            _ = await PostgresDeviceRepository.write(
                (1...20).map { Self.registration($0, app: app) }, client: f.client, logger: TestDatabase.logger)
            let failures = await withTaskGroup(of: Int.self) { group in
                for task in 0..<12 {
                    group.addTask {
                        // The combined statement itself: `write` would hide a deadlock by writing
                        // the rows again one by one.
                        var failed = 0
                        for _ in 0..<5 {
                            let batch = (1...20).shuffled().map { Self.registration($0, app: app, userID: "s\(task)") }
                            do {
                                _ = try await PostgresDeviceRepository.combined(batch, client: f.client, logger: TestDatabase.logger)
                            } catch {
                                failed += 1
                            }
                        }
                        return failed
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(failures == 0)
        }
    }

    /// On a cluster, registrations through the repository are written alone (the combined
    /// statement would go through the coordinator) and imports in batches of 16,000 lines; on one
    /// PostgreSQL registrations are combined and imports written 4,000 lines at a time.
    @Test(arguments: CitusTestDatabase.engines) func theRepositoryCombinesOnlyOnOnePostgreSQL(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            #expect(try await f.devices.layout.isDistributed(client: f.client, logger: TestDatabase.logger) == onCluster)
            // Imports write larger batches on a cluster, where each batch commits on every shard.
            #expect(await f.devices.importBatchSize() == (onCluster ? 16_000 : 4000))
            let (device, created) = try await f.devices.register(
                appID: f.app.id, token: StoreFixture.token(1), registration: StoreFixture.registration(userID: "u"))
            #expect(created && device.userID == "u")
        }
    }
}
