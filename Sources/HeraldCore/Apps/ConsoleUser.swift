import Foundation

/// What a console user may do (docs/console.md, "Users and roles").
public enum ConsoleRole: String, Codable, CaseIterable, Sendable, Comparable {
    /// Reads campaigns, templates and devices; changes nothing.
    case viewer
    /// Builds, test-sends, schedules, pauses, resumes and cancels campaigns.
    case marketing
    /// Everything, including users and pruning.
    case admin

    var rank: Int {
        switch self {
        case .viewer: 0
        case .marketing: 1
        case .admin: 2
        }
    }

    public static func < (lhs: ConsoleRole, rhs: ConsoleRole) -> Bool { lhs.rank < rhs.rank }
}

/// A person who signs in to the console, as listed: never the password hash.
public struct ConsoleUser: Sendable, Equatable {
    public var id: Int64
    /// Lowercase; the sign-in name.
    public var email: String
    public var role: ConsoleRole
    public var createdAt: Date
    public var lastLoginAt: Date?
    public var disabledAt: Date?

    public init(id: Int64, email: String, role: ConsoleRole, createdAt: Date, lastLoginAt: Date?, disabledAt: Date?) {
        self.id = id
        self.email = email
        self.role = role
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.disabledAt = disabledAt
    }

    /// How the audit log names the person: `user:<email>`.
    public var actor: String { "user:\(email)" }
}

/// What sign-in needs to know of a user: the hash to check and whether the account is locked.
public struct ConsoleCredentials: Sendable, Equatable {
    public var user: ConsoleUser
    public var passwordHash: String
    /// Sign-in is refused until then after repeated failures.
    public var lockedUntil: Date?

    public init(user: ConsoleUser, passwordHash: String, lockedUntil: Date?) {
        self.user = user
        self.passwordHash = passwordHash
        self.lockedUntil = lockedUntil
    }
}

/// A signed-in browser, found by the hash of its cookie.
public struct ConsoleSession: Sendable, Equatable {
    public var user: ConsoleUser
    /// The token every form and script request of the session must carry.
    public var csrfToken: String
    public var createdAt: Date
    public var lastSeenAt: Date
    public var expiresAt: Date

    public init(user: ConsoleUser, csrfToken: String, createdAt: Date, lastSeenAt: Date, expiresAt: Date) {
        self.user = user
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}

/// The rules for what a console user types: email and password.
public enum ConsoleUserRules {
    /// bcrypt reads at most 72 bytes; a longer password would be cut silently, so it is refused.
    public static let maximumPasswordBytes = 72
    public static let minimumPasswordLength = 10

    /// The email, trimmed and lowercased, or a `ValidationError` on `email`.
    public static func normalizedEmail(_ email: String) throws -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard (3...254).contains(trimmed.unicodeScalars.count), parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !"<>\"(),;:[]\\".unicodeScalars.contains($0) })
        else {
            throw ValidationError(field: "email", reason: "must be an email address such as ana@example.com")
        }
        return trimmed
    }

    /// Every problem with a new password (never repeating it).
    public static func check(password: String) -> [ValidationError] {
        if let scalar = TextRules.forbiddenCharacter(in: password) {
            return [ValidationError(field: "password", reason: TextRules.reason(scalar))]
        }
        if password.contains("\t") || password.contains("\n") || password.contains("\r") {
            return [ValidationError(field: "password", reason: "must be on one line")]
        }
        guard password.count >= minimumPasswordLength else {
            return [ValidationError(field: "password", reason: "must be at least \(minimumPasswordLength) characters")]
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            return [ValidationError(field: "password", reason: "must be at most \(maximumPasswordBytes) bytes of UTF-8")]
        }
        return []
    }
}

/// Console users and their sign-in state. Every change is audited with `actor`.
public protocol ConsoleUserRepository: Sendable {
    /// Adds a user; a `ValidationError` on `email` if one with that email exists.
    func add(email: String, role: ConsoleRole, passwordHash: String, actor: String) async throws -> ConsoleUser
    /// By email, oldest first, after `cursor` (a user ID); at most `limit`.
    func list(after cursor: Int64?, limit: Int) async throws -> [ConsoleUser]
    func find(email: String) async throws -> ConsoleUser?
    func credentials(email: String) async throws -> ConsoleCredentials?
    /// Clears the failure count and notes the sign-in.
    func recordLogin(userID: Int64, now: Date) async throws
    /// Disables (or enables) a user; disabling ends their sessions. False for an unknown user.
    func setDisabled(userID: Int64, disabled: Bool, actor: String) async throws -> Bool
    /// Replaces the password hash and ends the user's sessions. False for an unknown user.
    func setPassword(userID: Int64, passwordHash: String, actor: String) async throws -> Bool
    /// Changes the role. False for an unknown user.
    func setRole(userID: Int64, role: ConsoleRole, actor: String) async throws -> Bool
}

/// Signed-in sessions, keyed by the SHA-256 of their cookie.
public protocol ConsoleSessionRepository: Sendable {
    func create(tokenHash: [UInt8], userID: Int64, csrfToken: String, expiresAt: Date) async throws
    /// The session, if it exists, has not expired at `now` and its user is enabled. Moves its
    /// expiry to `now + idle` (at most once a minute, so a page view is not a write).
    func find(
        tokenHash: [UInt8], now: Date, idle: TimeInterval, absoluteLimit: TimeInterval
    ) async throws
        -> ConsoleSession?
    func delete(tokenHash: [UInt8]) async throws
    /// Removes expired sessions; returns how many.
    func deleteExpired(now: Date) async throws -> Int
}
