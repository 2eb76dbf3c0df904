import APNSCore
import Crypto
import Foundation
import Testing

@Suite struct ProviderTokenTests {
    private let key = P256.Signing.PrivateKey()
    private let issuedAt = Date(timeIntervalSince1970: 1_700_000_000.9)

    private func makeSigner() throws -> ProviderTokenSigner {
        try ProviderTokenSigner(pemRepresentation: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
    }

    @Test func writesTheDocumentedHeaderAndClaims() throws {
        let token = try makeSigner().token(issuedAt: issuedAt)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(TestBase64URL.decodeString(parts[0]) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(TestBase64URL.decodeString(parts[1]) == #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        #expect(TestBase64URL.decode(parts[2])?.count == 64)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
    }

    @Test func signatureVerifiesWithThePublicKey() throws {
        let token = try makeSigner().token(issuedAt: issuedAt)
        let verifier = ProviderTokenVerifier(keyID: "ABC123DEFG", publicKey: key.publicKey)
        let verified = try verifier.verify(token)
        #expect(verified == VerifiedProviderToken(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAtSeconds: 1_700_000_000))
        #expect(verified.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(!verified.isExpired(at: Date(timeIntervalSince1970: 1_700_003_600)))
        #expect(verified.isExpired(at: Date(timeIntervalSince1970: 1_700_003_601)))

        // Independently of APNSCore's verifier, with swift-crypto directly.
        let parts = token.split(separator: ".").map(String.init)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(TestBase64URL.decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }

    @Test func aFlippedSignatureByteFailsVerification() throws {
        let token = try makeSigner().token(issuedAt: issuedAt)
        let parts = token.split(separator: ".").map(String.init)
        var signature = try #require(TestBase64URL.decode(parts[2]))
        signature[17] ^= 0x01
        let tampered = parts[0] + "." + parts[1] + "." + TestBase64URL.encode(signature)
        let verifier = ProviderTokenVerifier(keyID: "ABC123DEFG", publicKey: key.publicKey)
        #expect(throws: ProviderTokenVerificationError.badSignature) { try verifier.verify(tampered) }
    }

    @Test func aChangedClaimFailsVerification() throws {
        let token = try makeSigner().token(issuedAt: issuedAt)
        let parts = token.split(separator: ".").map(String.init)
        let otherClaims = TestBase64URL.encode(Array(#"{"iss":"DEF123GHIJ","iat":1800000000}"#.utf8))
        let tampered = parts[0] + "." + otherClaims + "." + parts[2]
        let verifier = ProviderTokenVerifier(keyID: "ABC123DEFG", publicKey: key.publicKey)
        #expect(throws: ProviderTokenVerificationError.badSignature) { try verifier.verify(tampered) }
    }

    @Test func refusesOtherKeysAlgorithmsAndGarbage() throws {
        let token = try makeSigner().token(issuedAt: issuedAt)
        let stranger = ProviderTokenVerifier(keyID: "ABC123DEFG", publicKey: P256.Signing.PrivateKey().publicKey)
        #expect(throws: ProviderTokenVerificationError.badSignature) { try stranger.verify(token) }

        let otherKeyID = ProviderTokenVerifier(keyID: "ZZZ999ZZZZ", publicKey: key.publicKey)
        #expect(throws: ProviderTokenVerificationError.unknownKeyID) { try otherKeyID.verify(token) }

        let parts = token.split(separator: ".").map(String.init)
        let hs256 = TestBase64URL.encode(Array(#"{"alg":"HS256","kid":"ABC123DEFG"}"#.utf8))
        let verifier = ProviderTokenVerifier(keyID: "ABC123DEFG", publicKey: key.publicKey)
        #expect(throws: ProviderTokenVerificationError.unsupportedAlgorithm) {
            try verifier.verify(hs256 + "." + parts[1] + "." + parts[2])
        }
        for garbage in ["", "a.b", "a.b.c", parts[0] + "." + parts[1]] {
            #expect(throws: ProviderTokenVerificationError.malformed) { try verifier.verify(garbage) }
        }
        #expect(ProviderTokenVerificationError.badSignature.reason == .invalidProviderToken)
    }

    @Test func refusesABadKeyWithoutEchoingIt() {
        let pem = "-----BEGIN PRIVATE KEY-----\nTk9UQUtFWVNFQ1JFVA==\n-----END PRIVATE KEY-----"
        #expect(throws: ProviderTokenError.invalidSigningKey) {
            try ProviderTokenSigner(pemRepresentation: pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        }
        #expect(!ProviderTokenError.invalidSigningKey.description.contains("Tk9U"))
    }

    @Test func refusesMalformedIdentifiers() {
        #expect(throws: ProviderTokenError.invalidKeyID) {
            try ProviderTokenSigner(privateKey: key, keyID: "", teamID: "DEF123GHIJ")
        }
        #expect(throws: ProviderTokenError.invalidTeamID) {
            try ProviderTokenSigner(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF\"123")
        }
    }

    @Test func neverPrintsTheKey() throws {
        let signer = try makeSigner()
        let printed = "\(signer) \(String(reflecting: signer))"
        #expect(printed.contains("ABC123DEFG"))
        #expect(!printed.contains("PRIVATE"))
        var dumped = ""
        dump(signer, to: &dumped)
        #expect(!dumped.contains("privateKey"))
    }
}
