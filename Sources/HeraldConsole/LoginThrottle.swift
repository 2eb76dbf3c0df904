import Foundation
import Synchronization

/// Sign-in attempts, in this process: per client address in the last minute (bounding how fast
/// one address guesses across accounts and how much bcrypt work it causes), and failures per
/// account and address in the last 15 minutes. An account is never locked for everyone: a
/// guesser throttles only their own address, and the same answer comes whether the account
/// exists or not.
final class LoginThrottle: Sendable {
    private let perAddress: Int
    private let failuresPerAccount: Int
    static let addressWindow: TimeInterval = 60
    static let accountWindow: TimeInterval = 15 * 60
    private let attempts = Mutex<[String: [Date]]>([:])
    private let failures = Mutex<[String: [Date]]>([:])

    init(perMinute perAddress: Int, failuresPerAccount: Int) {
        self.perAddress = perAddress
        self.failuresPerAccount = failuresPerAccount
    }

    /// Counts an attempt from `address`; false when it is over the limit (not counted then).
    func allow(_ address: String, now: Date = Date()) -> Bool {
        attempts.withLock { attempts in
            Self.count(&attempts, key: address, limit: perAddress, window: Self.addressWindow, now: now)
        }
    }

    /// Whether `address` may try `account` again: false after too many failures lately.
    func allow(account: String, from address: String, now: Date = Date()) -> Bool {
        failures.withLock { failures in
            let recent = (failures[Self.key(account, address)] ?? []).filter { now.timeIntervalSince($0) < Self.accountWindow }
            return recent.count < failuresPerAccount
        }
    }

    func recordFailure(account: String, from address: String, now: Date = Date()) {
        failures.withLock { failures in
            _ = Self.count(&failures, key: Self.key(account, address), limit: .max, window: Self.accountWindow, now: now)
        }
    }

    func recordSuccess(account: String, from address: String) {
        failures.withLock { $0[Self.key(account, address)] = nil }
    }

    private static func key(_ account: String, _ address: String) -> String { account + "\u{0}" + address }

    /// Adds an attempt under `key` unless `limit` are in `window` already; forgets old keys
    /// once there are many.
    private static func count(
        _ table: inout [String: [Date]], key: String, limit: Int, window: TimeInterval, now: Date
    ) -> Bool {
        if table.count > 10_000 { table = table.filter { $0.value.last.map { now.timeIntervalSince($0) < window } ?? false } }
        var recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
        guard recent.count < limit else {
            table[key] = recent
            return false
        }
        recent.append(now)
        table[key] = recent
        return true
    }
}
