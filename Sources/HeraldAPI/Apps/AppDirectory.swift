import HeraldCore
import Synchronization

/// Finds apps by bundle ID or ID for every request, remembering each for at most `ttl` so a
/// busy backend's registrations do not each cost a read. An app changes (its default
/// environment, disabled, its credentials) through any instance or the CLI: the database
/// announces each change when it commits and `herald serve` forgets that app at once
/// (``forget(appID:)``); if an announcement is lost, the copy still lapses after `ttl`
/// (docs/architecture.md "What an instance remembers").
public final class AppDirectory: Sendable {
    private struct Entry {
        var app: App
        var cachedAt: ContinuousClock.Instant
    }

    private struct Entries {
        var byBundleID: [String: Entry] = [:]
        var bundleIDByID: [Int64: String] = [:]
        /// Grows with every forgetting: a read that began before one is not remembered, since
        /// it may hold what the announced change replaced.
        var generation: UInt64 = 0
    }

    /// At most this many apps are remembered; past it, the cache starts again.
    static let maximumEntries = 10_000

    public let ttl: Duration
    private let apps: any AppRepository
    private let entries = Mutex(Entries())

    /// `ttl` zero reads the app for every request.
    public init(apps: any AppRepository, ttl: Duration) {
        self.apps = apps
        self.ttl = ttl
    }

    /// The app, or 404 `unknown-app` naming `field` (the path's `bundleID` unless given).
    func require(bundleID: String, field: String = "bundleID") async throws -> App {
        if let app = remembered({ $0.byBundleID[bundleID] }) { return app }
        let generation = self.generation
        guard BundleID.isValid(bundleID), let app = try await apps.find(bundleID: bundleID) else {
            var problem = Problem.unknownApp()
            problem.field = field
            throw problem
        }
        remember(app, readAt: generation)
        return app
    }

    /// The app with this ID, if there is one.
    func app(id: Int64) async throws -> App? {
        if let app = remembered({ entries in entries.bundleIDByID[id].flatMap { entries.byBundleID[$0] } }) { return app }
        let generation = self.generation
        guard let app = try await apps.find(id: id) else { return nil }
        remember(app, readAt: generation)
        return app
    }

    /// The app as stored now, for the few routes that must not act on a copy even seconds old
    /// (showing or changing the app, sending now).
    func current(_ app: App) async throws -> App {
        let generation = self.generation
        guard let fresh = try await apps.find(id: app.id) else {
            forget(appID: app.id)
            throw Problem.unknownApp()
        }
        remember(fresh, readAt: generation)
        return fresh
    }

    /// Remembers an app as it was just stored.
    func replace(_ app: App) {
        remember(app, readAt: generation)
    }

    /// Forgets an app changed anywhere: its next request reads it again.
    public func forget(appID: Int64) {
        entries.withLock { entries in
            if let bundleID = entries.bundleIDByID.removeValue(forKey: appID) { entries.byBundleID[bundleID] = nil }
            entries.generation &+= 1
        }
    }

    /// Forgets every app: announcements may have been missed (the listener reconnected).
    public func forgetAll() {
        entries.withLock { entries in entries = Entries(generation: entries.generation &+ 1) }
    }

    public var count: Int { entries.withLock { $0.byBundleID.count } }

    private var generation: UInt64 { entries.withLock { $0.generation } }

    private func remembered(_ find: (Entries) -> Entry?, now: ContinuousClock.Instant = .now) -> App? {
        guard ttl > .zero else { return nil }
        return entries.withLock { entries in
            guard let entry = find(entries) else { return nil }
            guard now - entry.cachedAt < ttl else {
                entries.byBundleID[entry.app.bundleID] = nil
                entries.bundleIDByID[entry.app.id] = nil
                return nil
            }
            return entry.app
        }
    }

    private func remember(_ app: App, readAt generation: UInt64, now: ContinuousClock.Instant = .now) {
        guard ttl > .zero else { return }
        entries.withLock { entries in
            guard entries.generation == generation else { return }
            if entries.byBundleID.count >= Self.maximumEntries, entries.byBundleID[app.bundleID] == nil {
                entries = Entries(generation: entries.generation)
            }
            entries.byBundleID[app.bundleID] = Entry(app: app, cachedAt: now)
            entries.bundleIDByID[app.id] = app.bundleID
        }
    }
}
