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
        let token = notification.token
        Self.writeInteger(APNSNotification.pathPrefix.utf8.count + 2 * token.bytes.count, prefixBits: 7, flags: 0x00, into: &buffer)
        buffer.writeString(APNSNotification.pathPrefix)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 2 * token.bytes.count) { token.writeHex(into: $0) }
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
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { notification.apnsID.writeCanonical(into: $0) }
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
}
