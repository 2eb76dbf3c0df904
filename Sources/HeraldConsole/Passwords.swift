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
        checks.add(1, ordering: .relaxed)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Verifications made, real or decoy: every sign-in refusal costs exactly one.
    static let checks = Atomic<Int>(0)

    /// Spends the time of a check, for an unknown email; always false.
    static func verifyDecoy(_ password: String) async throws -> Bool {
        checks.add(1, ordering: .relaxed)
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
