import APNSCore
import Foundation

/// Reads a provider token's header and claims without checking its signature, for
/// ``SimulatorConfiguration/acceptAnySignature``. The shape rules still hold: three base64url
/// parts, `alg` ES256 (APNS.md "Authentication"), a `kid`, an `iss` and an integer `iat`.
enum UnverifiedProviderToken {
    static func parse(_ jwt: some StringProtocol) -> VerifiedProviderToken? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty,
            let headerBytes = decodeBase64URL(parts[0]),
            let claimsBytes = decodeBase64URL(parts[1]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsBytes),
            header.alg == "ES256", !header.kid.isEmpty
        else { return nil }
        return VerifiedProviderToken(keyID: header.kid, teamID: claims.iss, issuedAtSeconds: claims.iat)
    }

    /// Base64url without padding (RFC 4648 §5) through Foundation's base64.
    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = String(text)
        guard !base64.contains("="), !base64.contains("+"), !base64.contains("/") else { return nil }
        base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
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
