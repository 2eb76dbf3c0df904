import APNSCore
import NIOCore
import NIOHPACK
import Testing

@testable import APNSClient

/// The connection's HTTP/2 rules, with the test as the server (RFC 9113 section numbers).
@Suite struct HTTP2ConnectionTests {
    @Test func theClientOpensWithItsSettingsAndAConnectionWindow() throws {
        let h = try HTTP2ConnectionHarness()
        let frames = try h.readFrames()
        guard case .settings(let settings) = frames.first else {
            Issue.record("no SETTINGS first: \(frames)")
            return
        }
        #expect(settings.contains { $0.parameter == HTTP2Wire.Setting.enablePush.rawValue && $0.value == 0 })
        guard case .windowUpdate(0, let increment) = frames.last else {
            Issue.record("no connection WINDOW_UPDATE: \(frames)")
            return
        }
        #expect(increment == APNSConnectionHandler.receiveWindow - 65_535)
    }

    @Test func nothingIsSentBeforeTheServersSettingsWhichAreAcknowledged() throws {
        let h = try HTTP2ConnectionHarness()
        _ = try h.readFrames()
        let answer = h.submit()
        #expect(try h.readFrames().isEmpty)
        try h.serverSettings()
        let frames = try h.readFrames()
        guard case .settingsAck = frames.first else {
            Issue.record("no SETTINGS ack: \(frames)")
            return
        }
        #expect(frames.dropFirst().map(\.isHeaders) == [true, false])
        #expect(frames.last?.dataLength == 100)
        #expect(frames.last?.endsStream == true)
        try h.answer(streamID: 1)
        #expect(try answer.wait().status == 200)
    }

    @Test func aSmallStreamWindowSplitsTheBodyUntilTheServerOpensIt() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings([(.maxConcurrentStreams, 10), (.initialWindowSize, 10)])
        _ = try h.readFrames()
        let answer = h.submit(bodySize: 261)
        var frames = try h.readFrames()
        #expect(frames.compactMap(\.dataLength) == [10])
        #expect(frames.last?.endsStream == false)
        try h.serverWrites { HTTP2Wire.writeWindowUpdate(into: &$0, streamID: 1, increment: 100) }
        frames = try h.readFrames()
        #expect(frames.compactMap(\.dataLength) == [100])
        try h.serverWrites { HTTP2Wire.writeWindowUpdate(into: &$0, streamID: 1, increment: 1_000) }
        frames = try h.readFrames()
        #expect(frames.compactMap(\.dataLength) == [151])
        #expect(frames.last?.endsStream == true)
        try h.answer(streamID: 1)
        #expect(try answer.wait().status == 200)
    }

    @Test func theConnectionWindowHoldsBackBodiesAcrossStreams() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        // 20 bodies of 4,000 bytes against the initial 65,535-byte connection window.
        let answers = (0..<20).map { h.submit(bodySize: 4_000, token: $0) }
        var sent = try h.readFrames().compactMap(\.dataLength).reduce(0, +)
        #expect(sent == 65_535)
        try h.serverWrites { HTTP2Wire.writeWindowUpdate(into: &$0, streamID: 0, increment: 20_000) }
        sent += try h.readFrames().compactMap(\.dataLength).reduce(0, +)
        #expect(sent == 80_000)
        for stream in 0..<20 { try h.answer(streamID: 1 + 2 * stream) }
        #expect(try answers.map { try $0.wait().status } == Array(repeating: 200, count: 20))
    }

    @Test func anAnswerBeforeTheWholeBodyResetsTheRestOfTheStream() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings([(.maxConcurrentStreams, 10), (.initialWindowSize, 0)])
        _ = try h.readFrames()
        let answer = h.submit()
        #expect(try h.readFrames().compactMap(\.dataLength).isEmpty)
        try h.answer(streamID: 1, status: 413)
        #expect(try answer.wait().status == 413)
        let frames = try h.readFrames()
        guard case .rstStream(1, let code) = frames.last else {
            Issue.record("no RST_STREAM: \(frames)")
            return
        }
        #expect(code == HTTP2Wire.ErrorCode.cancel.rawValue)
    }

    @Test func pingsAreAnsweredWithTheirData() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        try h.serverWrites { HTTP2Wire.writePing(into: &$0, data: 0xDEAD_BEEF, ack: false) }
        let frames = try h.readFrames()
        guard case .ping(0xDEAD_BEEF, ack: true) = frames.last else {
            Issue.record("no PING ack: \(frames)")
            return
        }
    }

    @Test func aHeaderBlockInContinuationFramesIsReassembled() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        let answer = h.submit()
        try h.answer(streamID: 1, pieces: 3)
        #expect(try answer.wait().status == 200)
    }

    @Test func aFrameBetweenHeadersAndContinuationIsAProtocolError() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        let answer = h.submit()
        try h.serverWrites {
            HTTP2Wire.writeFrameHeader(into: &$0, length: 1, type: .headers, streamID: 1)
            $0.writeInteger(UInt8(0x88))
            HTTP2Wire.writePing(into: &$0, data: 1, ack: false)
        }
        #expect(try h.readFrames().last?.goAwayCode == HTTP2Wire.ErrorCode.protocolError.rawValue)
        #expect(throws: APNSClientError.self) { try answer.wait() }
        #expect(h.status.withLockedValue { $0.phase } == .closed)
    }

    @Test func aPushIsRefusedBecausePushIsOff() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        try h.serverWrites { HTTP2Wire.writeFrameHeader(into: &$0, length: 0, type: .pushPromise, streamID: 1) }
        #expect(try h.readFrames().last?.goAwayCode == HTTP2Wire.ErrorCode.protocolError.rawValue)
    }

    @Test func aFrameLargerThanHeraldAcceptsIsAFrameSizeError() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        try h.serverWrites {
            HTTP2Wire.writeFrameHeader(into: &$0, length: 16_385, type: .data, streamID: 1)
            $0.writeRepeatingByte(0, count: 16_385)
        }
        #expect(try h.readFrames().last?.goAwayCode == HTTP2Wire.ErrorCode.frameSizeError.rawValue)
    }

    @Test func aResetStreamFailsOnlyThatNotification() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        let first = h.submit(token: 1)
        let second = h.submit(token: 2)
        try h.serverWrites { HTTP2Wire.writeRSTStream(into: &$0, streamID: 1, code: .refusedStream) }
        #expect(throws: APNSClientError.streamReset("APNs reset the stream (refusedStream)")) { try first.wait() }
        try h.answer(streamID: 3)
        #expect(try second.wait().status == 200)
    }

    @Test func aConnectionOutOfStreamIDsDrainsAndHandsBackWhatIsLeft() throws {
        let h = try HTTP2ConnectionHarness(firstStreamID: Int(Int32.max))
        try h.serverSettings()
        _ = try h.readFrames()
        let last = h.submit(token: 1)
        let refused = h.submit(token: 2)
        #expect(throws: APNSClientError.self) { try refused.wait() }
        #expect(h.status.withLockedValue { $0.phase } == .draining)
        try h.answer(streamID: Int(Int32.max))
        #expect(try last.wait().status == 200)
        #expect(h.status.withLockedValue { $0.phase } == .closed)
    }

    @Test func aSmallerHeaderTableIsAnnouncedAndEveryBlockStillDecodes() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings([(.maxConcurrentStreams, 10), (.headerTableSize, 64)])
        _ = try h.readFrames()
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 64)
        for token in 0..<5 {
            _ = h.submit(token: token)
            for frame in try h.readFrames() {
                guard case .headers(_, var block, _, _) = frame else { continue }
                if token == 0 { #expect(block.getInteger(at: block.readerIndex, as: UInt8.self) == UInt8(0x3F)) }  // 0x20 | 31: a size update of 64
                let headers = try decoder.decodeHeaders(from: &block)
                #expect(headers.first(name: ":path") == "/3/device/" + String(format: "%064x", token))
                #expect(headers.first(name: "apns-topic") == "com.example.herald")
                #expect(headers.first(name: ":authority") == "api.push.apple.com")
            }
        }
    }
}

/// Writes while the socket is full, and a writability change fired in the middle of a write.
@Suite struct HTTP2ConnectionWritabilityTests {
    @Test func nothingIsWrittenWhileTheChannelIsNotWritable() throws {
        let h = try HTTP2ConnectionHarness()
        try h.serverSettings()
        _ = try h.readFrames()
        h.channel.isWritable = false
        let answer = h.submit()
        #expect(try h.readFrames().isEmpty)
        h.channel.isWritable = true
        h.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try h.readFrames().map(\.isHeaders) == [true, false])
        try h.answer(streamID: 1)
        #expect(try answer.wait().status == 200)
    }

    @Test func aWritabilityChangeDuringAWriteDoesNotWriteTheSameBytesTwice() throws {
        let h = try HTTP2ConnectionHarness()
        // Like a socket that drains at once: the write itself makes the channel writable again.
        try h.channel.pipeline.syncOperations.addHandler(ReentrantWritability(), position: .first)
        try h.serverSettings()
        let answers = (0..<3).map { h.submit(token: $0) }
        let frames = try h.readFrames()
        #expect(frames.filter { if case .settingsAck = $0 { true } else { false } }.count == 1)
        #expect(frames.filter(\.isHeaders).count == 3)
        for stream in 0..<3 { try h.answer(streamID: 1 + 2 * stream) }
        #expect(try answers.map { try $0.wait().status } == [200, 200, 200])
    }
}

/// Fires channelWritabilityChanged from inside every write, as a real socket can.
final class ReentrantWritability: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        context.fireChannelWritabilityChanged()
    }
}
