import APNSCore
import Foundation
import NIOCore
import NIOHPACK
import Testing

@testable import APNSClient

/// `encodeRequest(of:)`, the connection's way of writing a notification's headers, against the
/// header list `requestHeaders` documents: the same bytes, request after request, whatever the
/// notification carries and however the table moves.
@Suite struct HPACKNotificationEncodingTests {
    private static func notification(_ n: Int) -> APNSNotification {
        var notification = APNSNotification(
            token: try! DeviceToken(hex: String(format: "%064x", n &* 0x9E37_79B9)), topic: "com.example.app\(n % 5)",
            pushType: n % 7 == 0 ? .background : .alert, payload: Payload(aps: .init(alert: .body("Hello"))))
        if n % 3 == 0 { notification.collapseID = "sale-\(n % 4)" }
        if n % 4 == 1 { notification.expiration = n % 8 == 1 ? .immediately : .at(Date(timeIntervalSince1970: Double(1_800_000_000 + n))) }
        if n % 11 == 0 {
            // A 100-byte token: the path's length takes a second byte.
            notification.token = try! DeviceToken(bytes: Array(repeating: UInt8(n % 256), count: 100))
        }
        return notification
    }

    @Test(arguments: [4096, 256, 0], [String?.none, "bearer eyJ.token.sig"])
    func writesTheBytesOfTheHeaderList(tableSize: Int, authorization: String?) throws {
        var direct = HPACKRequestEncoder()
        var listed = HPACKRequestEncoder()
        direct.setMaxTableSize(tableSize)
        listed.setMaxTableSize(tableSize)
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: tableSize)
        var directIndexing = HeaderIndexingState()
        var listedIndexing = HeaderIndexingState()
        for n in 0..<300 {
            let notification = Self.notification(n)
            var fast = ByteBuffer()
            direct.beginBlock(into: &fast)
            direct.encodeRequest(of: notification, authorization: authorization, indexing: &directIndexing, into: &fast)
            var slow = ByteBuffer()
            listed.beginBlock(into: &slow)
            let headers = notification.requestHeaders(authorization: authorization, indexing: &listedIndexing)
            listed.encode(headers, into: &slow)
            #expect(fast == slow, "request \(n)")
            let decoded = try decoder.decodeHeaders(from: &fast)
            #expect(decoded.map(\.value) == headers.map(\.value))
            #expect(decoded.first(name: ":path") == "/3/device/" + notification.token.hex)
            #expect(decoded.first(name: "apns-id") == notification.apnsID.canonicalString)
        }
    }
}
