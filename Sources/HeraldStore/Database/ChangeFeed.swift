import Logging
import PostgresNIO

/// What other processes announce when it commits, so an instance forgets what it remembers:
/// a revoked API key (`herald_keys`, written by the revoking transaction) and a changed app or
/// app credential (`herald_apps`, written by the changing transaction through
/// ``announceAppChange(_:on:logger:)``; migration 0031 says why not by triggers).
public struct ChangeFeed: Sendable {
    public enum Change: Sendable, Equatable {
        case keyRevoked(Int64)
        case appChanged(Int64)
    }

    static let keyChannel = "herald_keys"
    static let appChannel = "herald_apps"

    let client: PostgresClient

    /// Announces, when the caller's transaction commits, that app `appID` or one of its
    /// credentials changed. Every write to `apps` or `app_credentials` calls it.
    static func announceAppChange(_ appID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(appChannel), \(String(appID)))", logger: logger)
    }

    public init(client: PostgresClient) {
        self.client = client
    }

    /// Calls `listening` once both LISTENs are in place, then `changed` for each change
    /// announced, until `duration` has passed or the wait fails; the caller listens again (a
    /// LISTEN on a connection that died silently would wait for ever, so it is renewed).
    /// Announcements made while nobody listened are lost: `listening` is where a caller
    /// forgets everything it remembers.
    public func listen(
        for duration: Duration, listening: @escaping @Sendable () -> Void = {},
        changed: @escaping @Sendable (Change) -> Void
    ) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.keyChannel) { keys in
                try await connection.listen(on: Self.appChannel) { apps in
                    listening()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in keys {
                                if let id = Int64(notification.payload) { changed(.keyRevoked(id)) }
                            }
                        }
                        group.addTask {
                            for try await notification in apps {
                                if let id = Int64(notification.payload) { changed(.appChanged(id)) }
                            }
                        }
                        group.addTask { try await Task.sleep(for: duration) }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
            }
        }
    }
}
