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

    public init(
        id: Int64, prefix: String, role: APIKeyRole, bundleID: String?, name: String?, createdAt: Date,
        lastUsedAt: Date?, revokedAt: Date?
    ) {
        self.id = id
        self.prefix = prefix
        self.role = role
        self.bundleID = bundleID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
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

    public init(keyID: Int64, keyPrefix: String, role: APIKeyRole, appBundleID: String?) {
        self.keyID = keyID
        self.keyPrefix = keyPrefix
        self.role = role
        self.appBundleID = appBundleID
    }

    /// How the audit log names this caller.
    public var actor: String { "key \(keyPrefix)… (\(role.rawValue))" }
}
