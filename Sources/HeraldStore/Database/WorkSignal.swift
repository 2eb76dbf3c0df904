import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The PostgreSQL channel engines listen on: a transition that gives them work (a campaign
/// scheduled, started or resumed) notifies it in its transaction, so every instance wakes when
/// it commits instead of at its next poll.
enum WorkSignal {
    static let channel = "herald_work"

    /// Listens on `channel` for at most `duration`, calling `wake` for each notification.
    static func listen(
        on channel: String, client: PostgresClient, for duration: Duration, logger: Logger,
        wake: @escaping @Sendable () -> Void
    ) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: channel) { notifications in
                // A LISTEN on a connection that died silently would wait for ever: it is given
                // up after `duration` and taken again on a fresh connection.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in notifications { wake() }
                    }
                    group.addTask { try await Task.sleep(for: duration) }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}

extension PostgresCampaignWork {
    public func listenForWork(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await WorkSignal.listen(on: WorkSignal.channel, client: client, for: duration, logger: logger, wake: wake)
    }
}
