import APNSCore
import Testing

@testable import herald

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
}
