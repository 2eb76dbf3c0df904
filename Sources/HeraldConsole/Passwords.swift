import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// bcrypt, run on NIO's blocking thread pool: a hash takes about a quarter of a second of CPU
/// at the default cost, which must not stall the tasks serving other requests.
public enum Passwords {
    public static let defaultCost: UInt8 = 12

    /// A hash checked against when the email is unknown, so that a wrong email takes as long
    /// as a wrong password and sign-in does not tell which accounts exist.
    private static let decoy = Bcrypt.hash("herald-decoy-password", cost: defaultCost)

    public static func hash(_ password: String, cost: UInt8 = defaultCost) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public static func verify(_ password: String, hash: String) async throws -> Bool {
        record(password, hash: hash)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Verifications made, real or decoy: every sign-in refusal costs exactly one.
    static let checks = Atomic<Int>(0)

    /// When on (tests only), the cost of every verification is kept under the password's hash
    /// value, so a test can tell its own sign-in's work from that of others running beside it.
    static let observing = Atomic<Bool>(false)
    private static let observed = Mutex<[Int: [Int]]>([:])

    /// The costs of the verifications made for `password` since observing began.
    static func costs(for password: String) -> [Int] {
        observed.withLock { $0[password.hashValue] ?? [] }
    }

    private static func record(_ password: String, hash: String) {
        checks.add(1, ordering: .relaxed)
        guard observing.load(ordering: .relaxed) else { return }
        // A bcrypt hash reads `$2b$12$…`: the third field is the cost.
        let cost = hash.split(separator: "$").dropFirst().first.flatMap { Int($0) } ?? -1
        observed.withLock { $0[password.hashValue, default: []].append(cost) }
    }

    /// Spends the time of a check, for an unknown email; always false.
    static func verifyDecoy(_ password: String) async throws -> Bool {
        record(password, hash: decoy)
        try await NIOThreadPool.singleton.runIfActive { _ = Bcrypt.verify(password, hash: decoy) }
        return false
    }

    /// A new password: 20 characters from 56 that are easy to read aloud (about 116 bits).
    public static func generate() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
