import HeraldCore
import Synchronization

/// Finds apps by bundle ID for every device request, remembering them: apps are added
/// rarely and never renamed, so one query per app per process is enough.
final class AppDirectory: Sendable {
    private let apps: any AppRepository
    private let cache = Mutex<[String: App]>([:])

    init(apps: any AppRepository) {
        self.apps = apps
    }

    /// The app, or 404 `unknown-app`.
    func require(bundleID: String) async throws -> App {
        if let app = cache.withLock({ $0[bundleID] }) { return app }
        guard BundleID.isValid(bundleID), let app = try await apps.find(bundleID: bundleID) else {
            throw Problem.unknownApp()
        }
        cache.withLock { $0[bundleID] = app }
        return app
    }
}
