import Foundation

/// The ID APNs gives a broadcast channel (iOS 18): standard base64 text, sent in the
/// `apns-channel-id` header and in a start push's `input-push-channel`.
public struct BroadcastChannelID: Hashable, Sendable, CustomStringConvertible {
    /// The longest ID Herald accepts, in characters; APNs's are far shorter.
    public static let maximumLength = 256

    public let value: String

    /// Nil unless `text` is 1 to 256 characters of padded standard base64 (RFC 4648 §4).
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength, text.utf8.count % 4 == 0,
            Data(base64Encoded: String(text)) != nil
        else { return nil }
        value = String(text)
    }

    public var description: String { value }
}
