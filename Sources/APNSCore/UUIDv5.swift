import Crypto
import Foundation

extension UUID {
    /// RFC 4122 name space for domain names, `6ba7b810-9dad-11d1-80b4-00c04fd430c8`.
    public static let namespaceDNS = UUID(
        uuid: (0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8)
    )

    /// RFC 4122 name space for URLs, `6ba7b811-9dad-11d1-80b4-00c04fd430c8`.
    public static let namespaceURL = UUID(
        uuid: (0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8)
    )

    /// A name-based UUID, version 5 (RFC 4122 §4.3): SHA-1 of the name space's 16 bytes
    /// followed by the name, truncated to 16 bytes, with the version and variant bits set.
    /// The same inputs always give the same UUID, which is how a resent campaign notification
    /// keeps its apns-id (docs/rules.md rule 2).
    public static func version5(namespace: UUID, name: [UInt8]) -> UUID {
        var hasher = Insecure.SHA1()
        Swift.withUnsafeBytes(of: namespace.uuid) { hasher.update(bufferPointer: $0) }
        name.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var bytes = Array(hasher.finalize())
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }

    /// A version 5 UUID of a name's UTF-8 bytes.
    public static func version5(namespace: UUID, name: String) -> UUID {
        version5(namespace: namespace, name: Array(name.utf8))
    }
}
