import APNSCore
import HeraldCore
import Testing

@testable import HeraldSending
@testable import HeraldServer

/// The engine's senders: one pool per app and environment, however many workers ask at once.
@Suite struct SenderDirectoryTests {
    @Test func workersAskingForTheSameSenderAtOnceShareOneClient() async throws {
        try await EngineHarness.with { harness in
            let directory = APNSSenderDirectory(apps: harness.store.apps, logger: harness.logs.logger())
            let appID = harness.app.id
            let bundleIDs = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await directory.sender(appID: appID, environment: .production).bundleID }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(bundleIDs == Array(repeating: EngineHarness.bundleID, count: 16))
            #expect(await directory.created == 1)
            _ = try await directory.sender(appID: appID, environment: .sandbox)
            #expect(await directory.created == 2)
            await directory.shutdown()
        }
    }

    /// `herald apps update --apns-endpoint` made anywhere: the next recheck builds a new pool for
    /// the new endpoint instead of sending to the old one for the life of the process.
    @Test func anEndpointChangedElsewhereGetsANewPoolAtTheNextRecheck() async throws {
        try await EngineHarness.with { harness in
            let directory = APNSSenderDirectory(apps: harness.store.apps, logger: harness.logs.logger(), recheckInterval: .zero)
            let appID = harness.app.id
            let first = try await directory.sender(appID: appID, environment: .production) as? APNSClientSender
            #expect(first?.connection.apnsEndpoint == harness.app.apnsEndpoint)
            _ = try await harness.store.apps.update(
                appID: appID, changes: AppChanges(apnsEndpoint: .some("https://127.0.0.1:9")), actor: "test")
            let second = try await directory.sender(appID: appID, environment: .production) as? APNSClientSender
            #expect(second?.connection.apnsEndpoint == "https://127.0.0.1:9")
            #expect(await directory.created == 2)
            // Unchanged: the same pool.
            _ = try await directory.sender(appID: appID, environment: .production)
            #expect(await directory.created == 2)
            await directory.shutdown()
        }
    }
}
