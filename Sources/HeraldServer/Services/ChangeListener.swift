import HeraldAPI
import HeraldStore
import Logging
import ServiceLifecycle

/// Forgets what this instance remembers as soon as a change made anywhere commits: keys
/// revoked and apps changed on any instance, by the CLI or by hand (`ChangeFeed`). It renews
/// the LISTEN every 5 minutes on a fresh connection, and forgets everything each time it
/// starts listening, since announcements made meanwhile were missed. While it cannot listen,
/// cached keys and apps still lapse after their own short lives.
struct ChangeListener: Service {
    public let changes: ChangeFeed
    public let keys: APIKeyCache
    public let apps: AppDirectory
    public let logger: Logger

    public func run() async throws {
        guard keys.ttl > .zero || apps.ttl > .zero else {
            // Nothing is cached: nothing to forget. A service that returned would stop the group.
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await changes.listen(for: .seconds(300)) {
                        keys.forgetAll()
                        apps.forgetAll()
                    } changed: { change in
                        switch change {
                        case .keyRevoked(let id): keys.forget(keyID: id)
                        case .appChanged(let id): apps.forget(appID: id)
                        }
                    }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning(
                        "listening for changes failed; cached keys and apps lapse meanwhile",
                        metadata: [
                            "error.type": "\(type(of: error))"
                        ])
                    try await Task.sleep(for: .seconds(5))
                }
            }
        }
    }
}
