import Foundation
import Synchronization

/// Sign-in attempts per client address in the last minute, in this process. It bounds how
/// fast one address can guess across many accounts (each account also locks itself after
/// repeated failures, in the database) and how much bcrypt work it can cause.
final class LoginThrottle: Sendable {
    private let limit: Int
    private let window: TimeInterval = 60
    private let attempts = Mutex<[String: [Date]]>([:])

    init(perMinute limit: Int) { self.limit = limit }

    /// Counts an attempt from `address`; false when it is over the limit (not counted then).
    func allow(_ address: String, now: Date = Date()) -> Bool {
        attempts.withLock { attempts in
            if attempts.count > 10_000 { attempts = attempts.filter { $0.value.last.map { now.timeIntervalSince($0) < window } ?? false } }
            var recent = (attempts[address] ?? []).filter { now.timeIntervalSince($0) < window }
            guard recent.count < limit else {
                attempts[address] = recent
                return false
            }
            recent.append(now)
            attempts[address] = recent
            return true
        }
    }
}
