import Crypto
import Foundation

/// Webhook signatures as the Standard Webhooks specification defines them, so receivers can
/// check them with its libraries (docs/webhooks.md "Checking a message"): HMAC-SHA256, keyed
/// with the base64-decoded part of the `whsec_…` secret, over `<webhook-id>.<webhook-timestamp>.<body>`,
/// sent as `v1,<base64>` in the `webhook-signature` header.
public enum WebhookSignature {
    public static let secretPrefix = "whsec_"

    /// The `webhook-signature` value; nil when `secret` is not a `whsec_` secret.
    public static func sign(messageID: String, timestamp: Int, body: String, secret: String) -> String? {
        guard let key = key(secret) else { return nil }
        var signed = Data("\(messageID).\(timestamp).".utf8)
        signed.append(contentsOf: body.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: key)
        return "v1," + Data(mac).base64EncodedString()
    }

    /// Whether any `v1,` signature in a header value (space-separated) matches, compared in
    /// constant time. Receivers do this; tests check Herald's own messages with it.
    public static func verify(header: String, messageID: String, timestamp: Int, body: String, secret: String) -> Bool {
        guard let key = key(secret) else { return false }
        var signed = Data("\(messageID).\(timestamp).".utf8)
        signed.append(contentsOf: body.utf8)
        for part in header.split(separator: " ") where part.hasPrefix("v1,") {
            guard let mac = Data(base64Encoded: String(part.dropFirst(3))) else { continue }
            if HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key) { return true }
        }
        return false
    }

    private static func key(_ secret: String) -> SymmetricKey? {
        guard secret.hasPrefix(secretPrefix), let bytes = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))),
            !bytes.isEmpty
        else { return nil }
        return SymmetricKey(data: bytes)
    }
}
