import HeraldCore
import Synchronization

/// Finds apps by bundle ID or ID for every request, remembering them: apps are added rarely
/// and never renamed, so one query per app per process is enough for who an app is. What can
/// change (its settings) is read again with ``current(_:)`` where it matters.
final class AppDirectory: Sendable {
    private let apps: any AppRepository
    private let byBundleID = Mutex<[String: App]>([:])
    private let byID = Mutex<[Int64: App]>([:])

    init(apps: any AppRepository) {
        self.apps = apps
    }

    /// The app, or 404 `unknown-app` naming `field` (the path's `bundleID` unless given).
    func require(bundleID: String, field: String = "bundleID") async throws -> App {
        if let app = byBundleID.withLock({ $0[bundleID] }) { return app }
        guard BundleID.isValid(bundleID), let app = try await apps.find(bundleID: bundleID) else {
            var problem = Problem.unknownApp()
            problem.field = field
            throw problem
        }
        remember(app)
        return app
    }

    /// The app with this ID, if there is one.
    func app(id: Int64) async throws -> App? {
        if let app = byID.withLock({ $0[id] }) { return app }
        guard let app = try await apps.find(id: id) else { return nil }
        remember(app)
        return app
    }

    /// The app as stored now: its settings (default zone, quiet hours, frequency caps) may have
    /// changed since it was remembered (`herald apps set` in another process).
    func current(_ app: App) async throws -> App {
        guard let fresh = try await apps.find(id: app.id) else { throw Problem.unknownApp() }
        remember(fresh)
        return fresh
    }

    /// Remembers an app as it was just stored.
    func replace(_ app: App) {
        remember(app)
    }

    private func remember(_ app: App) {
        byBundleID.withLock { $0[app.bundleID] = app }
        byID.withLock { $0[app.id] = app }
    }
}
