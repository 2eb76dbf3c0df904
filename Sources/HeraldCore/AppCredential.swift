import APNSCore
import Foundation

/// One of an app's APNs credentials as admins see it: never its secret. An app signs with its
/// one `active` credential; a `standby` one waits to be made active (a new key added ahead of
/// a switch, or the old key kept for a while after one); a `retired` one has had its secret
/// wiped and stays only as a record (docs/admin.md "Credentials").
public struct AppCredential: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A `.p8` signing key for provider tokens.
        case token
        /// A TLS client certificate.
        case certificate
    }

    public enum State: String, Sendable, CaseIterable {
        case active
        case standby
        case retired
    }

    public var id: Int64
    public var appID: Int64
    public var kind: Kind
    /// The signing key's 10-character ID, for `token` credentials.
    public var keyID: String?
    /// The first 16 hex digits of the SHA-256 of the public key; nil for keys stored before
    /// credentials were kept apart.
    public var fingerprint: String?
    public var state: State
    public var certificateSubject: String?
    public var certificateExpiresAt: Date?
    public var createdAt: Date
    public var activatedAt: Date?
    public var retiredAt: Date?

    public init(
        id: Int64, appID: Int64, kind: Kind, keyID: String?, fingerprint: String?, state: State,
        certificateSubject: String? = nil, certificateExpiresAt: Date? = nil, createdAt: Date, activatedAt: Date?,
        retiredAt: Date?
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.keyID = keyID
        self.fingerprint = fingerprint
        self.state = state
        self.certificateSubject = certificateSubject
        self.certificateExpiresAt = certificateExpiresAt
        self.createdAt = createdAt
        self.activatedAt = activatedAt
        self.retiredAt = retiredAt
    }
}

/// A `.p8` signing key to store, checked: its key ID has Apple's shape and its PEM is a P-256
/// private key (the only kind APNs accepts for provider tokens).
public struct NewSigningKey: Sendable {
    public var keyID: String
    public var pem: String
    /// The first 16 hex digits of the SHA-256 of the public key (DER).
    public var fingerprint: String

    /// `field` prefixes the names in errors (e.g. `credential.` when the key is part of a bigger body).
    public init(keyID: String, pem: String, field: String = "") throws(ValidationError) {
        guard AppleIdentifier.isValid(keyID) else {
            throw ValidationError(field: field + "keyID", reason: "must be 10 characters A-Z and 0-9")
        }
        guard let fingerprint = ProviderTokenSigner.publicKeyFingerprint(pemRepresentation: pem) else {
            throw ValidationError(
                field: field + "privateKey",
                reason: "must be a P-256 private key in PEM, the AuthKey_\(keyID).p8 file Apple gives you")
        }
        self.keyID = keyID
        self.pem = pem
        self.fingerprint = fingerprint
    }
}

/// The secret of an app's active credential, for the APNs sender only: never log or return it.
public struct ActiveCredential: Sendable {
    public var credential: AppCredential
    /// The `.p8` PEM of a `token` credential.
    public var signingKeyPEM: String

    public init(credential: AppCredential, signingKeyPEM: String) {
        self.credential = credential
        self.signingKeyPEM = signingKeyPEM
    }
}

/// Apple's team and key IDs: 10 characters A-Z and 0-9 (docs/apns.md "Provider tokens").
public enum AppleIdentifier {
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 10
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
    }
}
