import APNSCore
import Foundation
import NIOCore
import NIOHPACK
import Testing

@testable import APNSClient

/// Herald's request encoder against swift-nio-http2's HPACK decoder (RFC 7541).
@Suite struct HPACKRequestEncoderTests {
    private func notification(_ n: Int, topic: String = "com.example.herald") -> APNSNotification {
        APNSNotification(
            token: try! DeviceToken(hex: String(format: "%064x", n)), topic: topic, collapseID: "sale",
            payload: Payload(aps: .init(alert: .body("Hello"))))
    }

    @Test func blocksDecodeAndRepeatedHeadersShrinkToTableReferences() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        var indexing = HeaderIndexingState()
        var sizes = [Int]()
        for n in 0..<3 {
            let headers = notification(n).requestHeaders(providerToken: "eyJ.token.sig", indexing: &indexing)
            var block = ByteBuffer()
            encoder.beginBlock(into: &block)
            encoder.encode(headers, into: &block)
            sizes.append(block.readableBytes)
            let decoded = try decoder.decodeHeaders(from: &block)
            #expect(decoded.map(\.name) == headers.map(\.name))
            #expect(decoded.map(\.value) == headers.map(\.value))
        }
        // After the first request only `:path`, `apns-id` and `authorization` are literals.
        #expect(sizes[1] < sizes[0] - 40)
        #expect(sizes[2] == sizes[1])
    }

    @Test func pathAndAuthorizationAreLiteralsWithoutIndexing() {
        var encoder = HPACKRequestEncoder()
        var block = ByteBuffer()
        encoder.encode(APNSHeader(name: ":path", value: "/3/device/ab", indexing: .withoutIndexing), into: &block)
        encoder.encode(APNSHeader(name: "authorization", value: "bearer x", indexing: .withoutIndexing), into: &block)
        // 0000 0100: literal without indexing, name `:path` (static 4), raw 12-byte value.
        #expect(Array(block.readableBytesView.prefix(2)) == [0x04, 12])
        // 0000 1111 0000 1000: the same for `authorization` (static 23 = 15 + 8).
        #expect(Array(block.readableBytesView.dropFirst(14).prefix(3)) == [0x0F, 0x08, 8])
    }

    @Test func aSmallTableEvictsTheOldestAndStaysInStepWithTheDecoder() throws {
        var encoder = HPACKRequestEncoder()
        encoder.setMaxTableSize(256)
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 256)
        var indexing = HeaderIndexingState()
        // Topics cycle through more entries than the table holds, so indices move and entries go.
        for n in 0..<200 {
            let headers = notification(n, topic: "com.example.app\(n % 9)").requestHeaders(providerToken: nil, indexing: &indexing)
            var block = ByteBuffer()
            encoder.beginBlock(into: &block)
            encoder.encode(APNSHeader(name: ":authority", value: "api.push.apple.com", indexing: .incremental), into: &block)
            encoder.encode(headers, into: &block)
            let decoded = try decoder.decodeHeaders(from: &block)
            #expect(decoded.first(name: "apns-topic") == "com.example.app\(n % 9)")
            #expect(decoded.first(name: ":path") == "/3/device/" + String(format: "%064x", n))
            #expect(decoded.first(name: "apns-collapse-id") == "sale")
            #expect(decoded.count == headers.count + 1)
        }
    }

    /// The encoder remembers its lookups while the table stays as it is. After a run of one
    /// topic (every lookup remembered), a second topic shifts every dynamic index, and a smaller
    /// table evicts entries: each next reference must use the index the table has then.
    @Test func rememberedIndicesFollowTheTable() throws {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        var indexing = HeaderIndexingState()
        let topics = Array(repeating: "com.example.a", count: 20) + ["com.example.b"] + Array(repeating: "com.example.a", count: 5)
        var sizes = [Int]()
        for (n, topic) in (topics + topics).enumerated() {
            if n == topics.count { encoder.setMaxTableSize(200) }
            let headers = notification(n, topic: topic).requestHeaders(providerToken: "eyJ.token.sig", indexing: &indexing)
            var block = ByteBuffer()
            encoder.beginBlock(into: &block)
            encoder.encode(APNSHeader(name: ":authority", value: "api.push.apple.com", indexing: .incremental), into: &block)
            encoder.encode(headers, into: &block)
            sizes.append(block.readableBytes)
            let decoded = try decoder.decodeHeaders(from: &block)
            #expect(decoded.map(\.name) == [":authority"] + headers.map(\.name))
            #expect(decoded.map(\.value) == ["api.push.apple.com"] + headers.map(\.value))
        }
        // Repeated headers became references, and stay references once the table moves.
        #expect(sizes[19] < sizes[0] - 40)
        #expect(sizes[25] == sizes[19])
    }

    @Test func integersUseTheirPrefixAndContinuationBytes() {
        var buffer = ByteBuffer()
        HPACKRequestEncoder.writeInteger(10, prefixBits: 5, flags: 0, into: &buffer)
        HPACKRequestEncoder.writeInteger(1337, prefixBits: 5, flags: 0, into: &buffer)
        HPACKRequestEncoder.writeInteger(42, prefixBits: 8, flags: 0, into: &buffer)
        // RFC 7541 C.1.1, C.1.2, C.1.3.
        #expect(Array(buffer.readableBytesView) == [0x0A, 0x1F, 0x9A, 0x0A, 0x2A])
    }
}
