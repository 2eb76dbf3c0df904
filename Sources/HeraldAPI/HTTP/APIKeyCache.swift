import Foundation
import HeraldCore
import Synchronization

/// Keys that authenticated, remembered for a few seconds so a busy app backend's requests do
/// not each cost a database read (registrations are the hottest path). A revoked key is
/// forgotten at once: on this instance by the revoking route, on the others by the database's
/// notification (`herald serve` listens); if a notification is lost, the entry still lapses
/// after `ttl`. An expired key is refused by the cached expiry without asking the database.
/// Unknown keys are never remembered, so guessing cannot fill the cache.
public final class APIKeyCache: Sendable {
    private struct Entry {
        var principal: Principal
        var cachedAt: ContinuousClock.Instant
    }

    /// At most this many keys are remembered; past it the oldest entries go first.
    static let maximumEntries = 10_000

    public let ttl: Duration
    private let entries = Mutex<[String: Entry]>([:])

    /// `ttl` zero turns the cache off.
    public init(ttl: Duration) {
        self.ttl = ttl
    }

    /// The principal of `presented`, if it authenticated less than `ttl` ago and has not
    /// expired since.
    public func principal(for presented: String, now: ContinuousClock.Instant = .now, date: Date = Date()) -> Principal? {
        guard ttl > .zero else { return nil }
        return entries.withLock { entries in
            guard let entry = entries[presented] else { return nil }
            guard now - entry.cachedAt < ttl, entry.principal.expiresAt.map({ $0 > date }) ?? true else {
                entries[presented] = nil
                return nil
            }
            return entry.principal
        }
    }

    public func remember(_ principal: Principal, for presented: String, now: ContinuousClock.Instant = .now) {
        guard ttl > .zero else { return }
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries, entries[presented] == nil {
                // Lapsed entries first; if none has, the oldest half.
                entries = entries.filter { now - $0.value.cachedAt < ttl }
                if entries.count >= Self.maximumEntries {
                    let cutoff = entries.values.map(\.cachedAt).sorted()[entries.count / 2]
                    entries = entries.filter { $0.value.cachedAt > cutoff }
                }
            }
            entries[presented] = Entry(principal: principal, cachedAt: now)
        }
    }

    /// Forgets a revoked key at once.
    public func forget(keyID: Int64) {
        entries.withLock { entries in entries = entries.filter { $0.value.principal.keyID != keyID } }
    }

    /// Forgets every key: revocations may have been missed (the listener reconnected).
    public func forgetAll() {
        entries.withLock { $0.removeAll() }
    }

    public var count: Int { entries.withLock { $0.count } }
}
