import Crypto
import Foundation

/// Makes APNs provider tokens: ES256 JWTs signed with a team's `.p8` key.
///
/// docs/apns.md "Provider tokens": header `{"alg":"ES256","kid":"<key id>"}`, claims
/// `{"iss":"<team id>","iat":<unix seconds>}`, signed ES256 (P-256, SHA-256), sent as
/// `authorization: bearer <jwt>`. One token serves every topic of the team; the caller reuses
/// it and renews it between 20 and 60 minutes of age.
public struct ProviderTokenSigner: Sendable {
    /// The `kid` header: the signing key's ID.
    public let keyID: String
    /// The `iss` claim: the Apple developer team ID.
    public let teamID: String
    private let privateKey: P256.Signing.PrivateKey
    /// The header never changes, so it is encoded once.
    private let encodedHeader: String

    /// Loads the key from PEM (an Apple `.p8` file, PKCS#8; SEC 1 also works). The error
    /// never repeats the key.
    public init(pemRepresentation pem: String, keyID: String, teamID: String) throws(ProviderTokenError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw .invalidSigningKey
        }
        try self.init(privateKey: key, keyID: keyID, teamID: teamID)
    }

    public init(privateKey: P256.Signing.PrivateKey, keyID: String, teamID: String) throws(ProviderTokenError) {
        guard Self.isIdentifier(keyID) else { throw .invalidKeyID }
        guard Self.isIdentifier(teamID) else { throw .invalidTeamID }
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = privateKey
        var header = JSONWriter(reservingCapacity: 64)
        header.beginObject()
        header.member("\"alg\":\"ES256\"")
        header.member("\"kid\":")
        header.string(keyID)
        header.endObject()
        encodedHeader = Base64URL.encode(header.bytes)
    }

    /// A token issued at `issuedAt` (whole UNIX seconds, rounded down).
    public func token(issuedAt: Date) throws(ProviderTokenError) -> String {
        var claims = JSONWriter(reservingCapacity: 64)
        claims.beginObject()
        claims.member("\"iss\":")
        claims.string(teamID)
        claims.member("\"iat\":")
        claims.int(Self.unixSeconds(issuedAt))
        claims.endObject()
        let signingInput = encodedHeader + "." + Base64URL.encode(claims.bytes)
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: Data(signingInput.utf8))
        } catch {
            throw .signingFailed
        }
        // JWS ES256 wants the raw 64-byte r||s form, not DER.
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The public half, for a verifier (e.g. the APNs simulator) to check tokens with.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    static func isIdentifier(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    private static func unixSeconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Int(exactly: seconds) ?? 0
    }
}

extension ProviderTokenSigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the key and team only: the key itself never reaches a log (docs/rules.md rule 9).
    public var description: String { "ProviderTokenSigner(keyID: \(keyID), teamID: \(teamID))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["keyID": keyID, "teamID": teamID], displayStyle: .struct)
    }
}

extension ProviderTokenSigner {
    /// The first 16 hex digits of the SHA-256 of the public key (DER) of a PEM private key, to
    /// recognise a key by without showing it; nil when `pem` is not a P-256 private key.
    public static func publicKeyFingerprint(pemRepresentation pem: String) -> String? {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else { return nil }
        let digest = SHA256.hash(data: key.publicKey.derRepresentation)
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
