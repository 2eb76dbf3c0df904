import APNSCore
import Foundation
import NIOCore

extension HPACKRequestEncoder {
    /// Writes a notification's request headers exactly as `encode(notification.requestHeaders(…))`
    /// would, without making the list: `:path` and a literal `apns-id` go from the token's and
    /// the ID's bytes straight into the buffer, so a request makes no String of its own.
    /// (`HPACKNotificationEncodingTests` checks the two give the same bytes.)
    mutating func encodeRequest(
        of notification: APNSNotification, authorization: String?, indexing: inout HeaderIndexingState,
        into buffer: inout ByteBuffer
    ) {
        encode(APNSHeader(name: ":method", value: "POST", indexing: .incremental), into: &buffer)
        encode(APNSHeader(name: ":scheme", value: "https", indexing: .incremental), into: &buffer)
        // docs/apns.md "Header compression": `:path` is unique per device, so literal without indexing.
        writeLiteralName(":path", into: &buffer)
        let token = notification.token.bytes
        Self.writeInteger(APNSNotification.pathPrefix.utf8.count + 2 * token.count, prefixBits: 7, flags: 0x00, into: &buffer)
        buffer.writeString(APNSNotification.pathPrefix)
        Self.writeHex(token, into: &buffer)
        encode(APNSHeader(name: "apns-push-type", value: notification.pushType.headerValue, indexing: .incremental), into: &buffer)
        encode(APNSHeader(name: "apns-priority", value: notification.priority.headerValue, indexing: .incremental), into: &buffer)
        encode(APNSHeader(name: "apns-topic", value: notification.topic, indexing: .incremental), into: &buffer)
        if let expiration = notification.expiration {
            encode(
                APNSHeader(name: "apns-expiration", value: expiration.headerValue, indexing: indexing.nextExpirationIndexing()),
                into: &buffer)
        }
        if let collapseID = notification.collapseID {
            encode(APNSHeader(name: "apns-collapse-id", value: collapseID, indexing: indexing.nextCollapseIDIndexing()), into: &buffer)
        }
        let idIndexing = indexing.nextAPNSIDIndexing()
        if idIndexing == .incremental {
            // The first one is indexed, so the table holds it as text.
            encode(APNSHeader(name: "apns-id", value: notification.apnsID.canonicalString, indexing: idIndexing), into: &buffer)
        } else {
            writeLiteralName("apns-id", into: &buffer)
            Self.writeInteger(36, prefixBits: 7, flags: 0x00, into: &buffer)
            Self.writeCanonical(notification.apnsID, into: &buffer)
        }
        if let authorization {
            encode(APNSHeader(name: "authorization", value: authorization, indexing: .withoutIndexing), into: &buffer)
        }
    }

    /// A literal without indexing's first bytes: the name by its index, or written out.
    private mutating func writeLiteralName(_ name: String, into buffer: inout ByteBuffer) {
        let nameIndex = lookUp(name, value: nil) ?? 0
        Self.writeInteger(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
        if nameIndex == 0 { Self.writeString(name, into: &buffer) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex, as ``DeviceToken/hex``.
    private static func writeHex(_ bytes: [UInt8], into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 2 * bytes.count) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigits[Int(byte >> 4)]
                out[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return 2 * bytes.count
        }
    }

    /// `8-4-4-4-12` lowercase hex digits, as ``Foundation/UUID/canonicalString``.
    private static func writeCanonical(_ id: UUID, into buffer: inout ByteBuffer) {
        withUnsafeBytes(of: id.uuid) { raw in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { out in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = hexDigits[Int(byte >> 4)]
                    out[position + 1] = hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}
