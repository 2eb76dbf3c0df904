import HeraldAPI
import HeraldStore
import Logging
import ServiceLifecycle

/// Forgets keys revoked on any instance (or by the CLI) as soon as the revocation commits: it
/// listens on the database's `herald_keys` channel, renewing the LISTEN every 5 minutes on a
/// fresh connection. While it cannot listen, cached keys still lapse after
/// `HERALD_API_KEY_CACHE_SECONDS`.
struct KeyRevocationListener: Service {
    let keys: PostgresAPIKeyRepository
    let cache: APIKeyCache
    let logger: Logger

    func run() async throws {
        guard cache.ttl > .zero else {
            // Nothing is cached: nothing to forget. A service that returned would stop the group.
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await keys.listenForRevocations(for: .seconds(300)) { id in cache.forget(keyID: id) }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("listening for key revocations failed; cached keys lapse meanwhile", metadata: [
                        "error.type": "\(type(of: error))",
                    ])
                    try await Task.sleep(for: .seconds(5))
                }
            }
        }
    }
}
