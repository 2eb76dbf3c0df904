import Foundation

/// What an API key may do (docs/rules.md, "Who does what").
public enum APIKeyRole: String, Codable, CaseIterable, Sendable {
    /// An app backend: its own app's devices and notifications only.
    case app
    /// Marketing: templates and campaigns; reads devices; never prunes.
    case marketing
    /// Everything.
    case admin
}

/// An API key as listed: never the secret, which only its creator ever sees.
public struct APIKey: Sendable, Equatable {
    public var id: Int64
    /// The first characters of the key, enough to recognise it in a list.
    public var prefix: String
    public var role: APIKeyRole
    /// The app an `app` key is bound to.
    public var bundleID: String?
    public var name: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
    /// After this moment the key no longer works; nil: never.
    public var expiresAt: Date?
    /// The apps a marketing key may work on, by bundle ID; nil: every app.
    public var appScope: [String]?

    public init(
        id: Int64, prefix: String, role: APIKeyRole, bundleID: String?, name: String?, createdAt: Date,
        lastUsedAt: Date?, revokedAt: Date?, expiresAt: Date? = nil, appScope: [String]? = nil
    ) {
        self.id = id
        self.prefix = prefix
        self.role = role
        self.bundleID = bundleID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.expiresAt = expiresAt
        self.appScope = appScope
    }
}

/// A key to create, checked: an app key names its app, a marketing key may name a set of apps,
/// an admin key names none; an expiry lies in the future and within ten years.
public struct NewAPIKey: Sendable {
    public static let maximumName = 100
    public static let maximumScope = 100

    public var role: APIKeyRole
    /// The app of an `app` key.
    public var appID: Int64?
    /// The apps of a scoped marketing key.
    public var appScope: [Int64]?
    public var name: String?
    public var expiresAt: Date?

    public init(
        role: APIKeyRole, appID: Int64? = nil, appScope: [Int64]? = nil, name: String? = nil, expiresAt: Date? = nil,
        now: Date = Date()
    ) throws(ValidationError) {
        switch role {
        case .app:
            guard appID != nil else { throw ValidationError(field: "app", reason: "an app key needs its app") }
            guard appScope == nil else { throw ValidationError(field: "apps", reason: "only marketing keys take a set of apps") }
        case .marketing:
            guard appID == nil else { throw ValidationError(field: "app", reason: "only app keys take an app; scope a marketing key with apps") }
            if let appScope {
                guard !appScope.isEmpty else {
                    throw ValidationError(field: "apps", reason: "name at least one app, or leave apps out for every app")
                }
                guard appScope.count <= Self.maximumScope else { throw ValidationError(field: "apps", reason: "at most \(Self.maximumScope) apps") }
            }
        case .admin:
            guard appID == nil else { throw ValidationError(field: "app", reason: "admin keys are for every app") }
            guard appScope == nil else { throw ValidationError(field: "apps", reason: "admin keys are for every app") }
        }
        if let name {
            guard !name.isEmpty, TextRules.storedLength(name) <= Self.maximumName, TextRules.forbiddenCharacter(in: name) == nil else {
                throw ValidationError(field: "name", reason: "must be 1 to \(Self.maximumName) characters without control characters")
            }
        }
        if let expiresAt {
            guard expiresAt > now else { throw ValidationError(field: "expiresAt", reason: "must be in the future") }
            guard expiresAt < now.addingTimeInterval(10 * 366 * 86_400) else {
                throw ValidationError(field: "expiresAt", reason: "must be within ten years; leave it out for a key that does not expire")
            }
        }
        self.role = role
        self.appID = appID
        self.appScope = appScope.map { Array(Set($0)).sorted() }
        self.name = name
        self.expiresAt = expiresAt
    }
}

/// A freshly generated key: `hk_` and 64 hex digits (256 random bits).
public struct APIKeySecret: Sendable {
    public let value: String

    public init() {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out = Array("hk_".utf8)
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        value = String(decoding: out, as: UTF8.self)
    }

    /// What lists show: `hk_` and the first 8 hex digits.
    public var prefix: String { String(value.prefix(11)) }
}

/// Who is calling, once their key checked out.
public struct Principal: Sendable, Equatable {
    public var keyID: Int64
    public var keyPrefix: String
    public var role: APIKeyRole
    /// Set for `app` keys: the only app they may touch.
    public var appBundleID: String?
    /// Set for scoped marketing keys: the apps they may work on.
    public var appScope: Set<String>?
    /// When the key stops working; nil: never.
    public var expiresAt: Date?

    public init(
        keyID: Int64, keyPrefix: String, role: APIKeyRole, appBundleID: String?, appScope: Set<String>? = nil,
        expiresAt: Date? = nil
    ) {
        self.keyID = keyID
        self.keyPrefix = keyPrefix
        self.role = role
        self.appBundleID = appBundleID
        self.appScope = appScope
        self.expiresAt = expiresAt
    }

    /// Whether this caller may work on `bundleID` at all (its role decides what it may do there).
    public func mayUse(bundleID: String) -> Bool {
        switch role {
        case .admin: true
        case .app: appBundleID == bundleID
        case .marketing: appScope?.contains(bundleID) ?? true
        }
    }

    /// How the audit log names this caller.
    public var actor: String { "key \(keyPrefix)… (\(role.rawValue))" }
}
