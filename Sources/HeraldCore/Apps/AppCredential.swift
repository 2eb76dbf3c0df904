import APNSCore
import Foundation

/// One of an app's APNs credentials as admins see it: never its secret. An app signs with its
/// one `active` credential; a `standby` one waits to be made active (a new key added ahead of
/// a switch, or the old key kept for a while after one); a `retired` one has had its secret
/// wiped and stays only as a record (docs/admin.md "Credentials").
public struct AppCredential: Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
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
    /// The subject of a `certificate` credential (`UID=<bundle ID>, CN=…`).
    public var certificateSubject: String?
    /// When a `certificate` credential stops working.
    public var certificateExpiresAt: Date?
    public var createdAt: Date
    public var activatedAt: Date?
    public var retiredAt: Date?
    /// When APNs first refused it (403, or a TLS alert for a certificate), and why.
    public var rejectedAt: Date?
    public var rejectionReason: String?

    public init(
        id: Int64, appID: Int64, kind: Kind, keyID: String?, fingerprint: String?, state: State,
        certificateSubject: String? = nil, certificateExpiresAt: Date? = nil, createdAt: Date, activatedAt: Date?,
        retiredAt: Date?, rejectedAt: Date? = nil, rejectionReason: String? = nil
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
        self.rejectedAt = rejectedAt
        self.rejectionReason = rejectionReason
    }
}

/// When one of an app's certificates stops working, for the expiry metric and alert.
public struct CertificateExpiry: Sendable, Equatable {
    public var bundleID: String
    public var credentialID: Int64
    public var state: AppCredential.State
    public var expiresAt: Date

    public init(bundleID: String, credentialID: Int64, state: AppCredential.State, expiresAt: Date) {
        self.bundleID = bundleID
        self.credentialID = credentialID
        self.state = state
        self.expiresAt = expiresAt
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
    public var secret: CredentialSecret

    public init(credential: AppCredential, secret: CredentialSecret) {
        self.credential = credential
        self.secret = secret
    }
}

/// What a credential's sealed secret holds: a `.p8` PEM, or a `.p12` file with its password.
public enum CredentialSecret: Sendable, Equatable {
    case signingKey(pem: String)
    case certificate(pkcs12: [UInt8], password: String)

    /// The text that is sealed: the PEM itself (as stored before certificates existed), or a
    /// small JSON object for a certificate.
    public var sealedText: String {
        switch self {
        case .signingKey(let pem): return pem
        case .certificate(let pkcs12, let password):
            let stored = StoredCertificate(p12: Data(pkcs12).base64EncodedString(), password: password)
            // Encoding two strings cannot fail.
            return (try? CanonicalJSON.text(stored)) ?? ""
        }
    }

    /// Reads an opened secret of a credential of `kind`; nil when it does not have that shape.
    public init?(kind: AppCredential.Kind, sealedText: String) {
        switch kind {
        case .token:
            self = .signingKey(pem: sealedText)
        case .certificate:
            guard let stored = try? JSONDecoder().decode(StoredCertificate.self, from: Data(sealedText.utf8)),
                let bytes = Data(base64Encoded: stored.p12)
            else { return nil }
            self = .certificate(pkcs12: Array(bytes), password: stored.password)
        }
    }

    private struct StoredCertificate: Codable {
        var p12: String
        var password: String
    }
}

/// A `.p12` client certificate to store, as a ``CertificateReader`` found it: it opens with
/// its password, is still valid, and may push to the app.
public struct NewCertificate: Sendable {
    public var pkcs12: [UInt8]
    public var password: String
    /// The subject as one line (`UID=com.example.app, CN=…`).
    public var subject: String
    /// The topics it may push to.
    public var topics: [String]
    public var expiresAt: Date
    /// The first 16 hex digits of the SHA-256 of the certificate (DER).
    public var fingerprint: String

    public init(pkcs12: [UInt8], password: String, subject: String, topics: [String], expiresAt: Date, fingerprint: String) {
        self.pkcs12 = pkcs12
        self.password = password
        self.subject = subject
        self.topics = topics
        self.expiresAt = expiresAt
        self.fingerprint = fingerprint
    }
}

/// Opens and checks `.p12` files (the TLS layer knows how); the API and the CLI share one.
public protocol CertificateReader: Sendable {
    /// A certificate for the app `bundleID`, or a ``ValidationError`` naming `field` +
    /// `certificate` (not a .p12, expired, for another app) or `field` + `password`.
    func read(
        pkcs12: [UInt8], password: String, bundleID: String, now: Date, field: String
    ) throws(ValidationError)
        -> NewCertificate
}

/// A credential to add: a `.p8` signing key or a `.p12` certificate.
public enum NewCredential: Sendable {
    case signingKey(NewSigningKey)
    case certificate(NewCertificate)

    public var kind: AppCredential.Kind {
        switch self {
        case .signingKey: .token
        case .certificate: .certificate
        }
    }

    public var secret: CredentialSecret {
        switch self {
        case .signingKey(let key): .signingKey(pem: key.pem)
        case .certificate(let certificate): .certificate(pkcs12: certificate.pkcs12, password: certificate.password)
        }
    }

    public var fingerprint: String {
        switch self {
        case .signingKey(let key): key.fingerprint
        case .certificate(let certificate): certificate.fingerprint
        }
    }
}

/// Apple's team and key IDs: 10 characters A-Z and 0-9 (docs/apns.md "Provider tokens").
public enum AppleIdentifier {
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 10
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
    }
}
