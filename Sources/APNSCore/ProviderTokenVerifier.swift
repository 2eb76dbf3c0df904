import Crypto
import Foundation

/// Checks APNs provider tokens as APNs does: ES256 only, a known `kid`, a valid signature
/// (docs/apns.md "Provider tokens"). Used by the APNs simulator; the age check is the caller's,
/// with ``VerifiedProviderToken/isExpired(at:)``.
public struct ProviderTokenVerifier: Sendable {
    private let keys: [String: P256.Signing.PublicKey]

    /// Verifies tokens signed by any of these keys, by key ID.
    public init(keys: [String: P256.Signing.PublicKey]) {
        self.keys = keys
    }

    /// Verifies tokens signed by one key.
    public init(keyID: String, publicKey: P256.Signing.PublicKey) {
        self.init(keys: [keyID: publicKey])
    }

    /// Parses and checks a JWT, returning its key ID, team ID and issue time.
    public func verify(_ token: some StringProtocol) throws(ProviderTokenVerificationError) -> VerifiedProviderToken {
        let parsed = try Self.parse(token)
        guard let key = keys[parsed.token.keyID] else { throw .unknownKeyID }
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try P256.Signing.ECDSASignature(rawRepresentation: parsed.signature)
        } catch {
            throw .badSignature
        }
        guard key.isValidSignature(signature, for: parsed.signingInput) else { throw .badSignature }
        return parsed.token
    }

    /// Reads a token's key ID, team ID and issue time without checking its signature (the
    /// simulator's accept-any-signature mode). The shape rules still hold: three base64url
    /// parts, a non-empty signature, `alg` ES256, a `kid`, an `iss` and an integer `iat`.
    public static func readUnverified(_ token: some StringProtocol) -> VerifiedProviderToken? {
        guard let parsed = try? parse(token), !parsed.signature.isEmpty, !parsed.token.keyID.isEmpty else { return nil }
        return parsed.token
    }

    private static func parse(
        _ token: some StringProtocol
    ) throws(ProviderTokenVerificationError)
        -> (token: VerifiedProviderToken, signingInput: Data, signature: [UInt8])
    {
        let parts = String(token).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let claimsBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2])
        else { throw .malformed }

        let header: Header
        let claims: Claims
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
            claims = try JSONDecoder().decode(Claims.self, from: Data(claimsBytes))
        } catch {
            throw .malformed
        }
        // docs/apns.md "Provider tokens": only ES256 is accepted.
        guard header.alg == "ES256" else { throw .unsupportedAlgorithm }
        let signingInput = Data((String(parts[0]) + "." + String(parts[1])).utf8)
        return (
            VerifiedProviderToken(keyID: header.kid, teamID: claims.iss, issuedAtSeconds: claims.iat),
            signingInput, signatureBytes
        )
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    private struct Claims: Decodable {
        var iss: String
        var iat: Int64
    }
}

/// The facts of a provider token whose signature checked out.
public struct VerifiedProviderToken: Hashable, Sendable {
    /// docs/apns.md "Provider tokens": a token older than one hour is rejected (ExpiredProviderToken).
    public static let maximumAge: TimeInterval = 3600

    /// `kid`.
    public var keyID: String
    /// `iss`.
    public var teamID: String
    /// `iat`, UNIX seconds.
    public var issuedAtSeconds: Int64

    public init(keyID: String, teamID: String, issuedAtSeconds: Int64) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAtSeconds = issuedAtSeconds
    }

    /// `iat` as a date.
    public var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(issuedAtSeconds)) }

    /// True once the token is more than an hour old at `now`.
    public func isExpired(at now: Date) -> Bool {
        now.timeIntervalSince(issuedAt) > Self.maximumAge
    }
}

/// Why a provider token was refused. Every case is APNs's 403 InvalidProviderToken; the
/// messages never repeat the token.
public enum ProviderTokenVerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not three base64url parts of JSON with `alg`, `kid`, `iss` and an integer `iat`.
    case malformed
    /// `alg` is not ES256.
    case unsupportedAlgorithm
    /// No key is configured for the `kid`.
    case unknownKeyID
    /// The signature does not verify with the key of that `kid`.
    case badSignature

    /// The reason APNs answers with.
    public var reason: APNSReason { .invalidProviderToken }

    public var description: String {
        switch self {
        case .malformed: "provider token is not a JWT with alg, kid, iss and iat"
        case .unsupportedAlgorithm: "provider token must be signed ES256"
        case .unknownKeyID: "provider token names an unknown key ID"
        case .badSignature: "provider token signature does not verify"
        }
    }
}
