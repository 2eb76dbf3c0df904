import APNSCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHPACK

@testable import APNSClient

/// One `APNSConnectionHandler` on an `EmbeddedChannel`, with the test playing the server:
/// it reads the client's frames and writes server frames byte by byte.
final class HTTP2ConnectionHarness {
    let channel = EmbeddedChannel()
    let handler: APNSConnectionHandler
    let status = NIOLockedValueBox(APNSConnectionStatus())
    private var clientFrames = HTTP2FrameReader()
    private var serverEncoder = HPACKEncoder(allocator: ByteBufferAllocator())

    init(firstStreamID: Int = 1) throws {
        var configuration = APNSConnectionHandler.Machine.Configuration(
            authority: "api.push.apple.com", requestTimeout: .seconds(30), idlePingInterval: .hours(1),
            pingTimeout: .seconds(10), requiresAuthentication: false)
        configuration.firstStreamID = firstStreamID
        handler = APNSConnectionHandler(
            configuration: configuration,
            tokenSource: nil, setupTimeout: .seconds(10), now: { Date() }, metrics: APNSClientMetrics(),
            ready: channel.eventLoop.makePromise(), status: status, logger: Logger(label: "http2.test"))
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let expected = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        guard var preface = try channel.readOutbound(as: ByteBuffer.self),
            preface.readString(length: expected.utf8.count) == expected
        else { throw HarnessError.noPreface }
        clientFrames.append(preface)
    }

    enum HarnessError: Error { case noPreface }

    /// Sends one notification with a body of `bodySize` bytes; the promise gets APNs's answer.
    func submit(bodySize: Int = 100, token: Int = 1) -> EventLoopFuture<APNSResponse> {
        // A batch of one: its promise is what a test on the embedded loop can wait for.
        let promise = channel.eventLoop.makePromise(of: [APNSBatchCollector.Outcome].self)
        let notification = APNSNotification(
            token: try! DeviceToken(hex: String(format: "%064x", token)), bundleID: "com.example.herald",
            payload: Payload(aps: .init(alert: .body("Hello"))))
        handler.submit(
            .init(
                notification: notification, body: Array(repeating: 0x20, count: bodySize),
                completion: .batch(APNSBatchCollector(count: 1, promise: promise), index: 0)))
        channel.embeddedEventLoop.run()
        return promise.futureResult.flatMapThrowing { try $0[0].get() }
    }

    /// Every frame the client wrote since the last call.
    func readFrames() throws -> [ServerFrame] {
        channel.embeddedEventLoop.run()
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { clientFrames.append(bytes) }
        var frames = [ServerFrame]()
        while let frame = try clientFrames.next() { frames.append(frame) }
        return frames
    }

    func serverWrites(_ build: (inout ByteBuffer) -> Void) throws {
        var buffer = ByteBuffer()
        build(&buffer)
        try channel.writeInbound(buffer)
        channel.embeddedEventLoop.run()
    }

    func serverSettings(_ settings: [(HTTP2Wire.Setting, UInt32)] = [(.maxConcurrentStreams, 100)]) throws {
        try serverWrites { HTTP2Wire.writeSettings(into: &$0, settings) }
    }

    /// A response header block, split into `pieces` frames (HEADERS then CONTINUATIONs).
    func answer(streamID: Int, status: Int = 200, endStream: Bool = true, pieces: Int = 1) throws {
        var block = ByteBuffer()
        try serverEncoder.encode(headers: [":status": "\(status)", "apns-id": "00000000-0000-0000-0000-00000000000\(streamID % 10)"], to: &block)
        let size = (block.readableBytes + pieces - 1) / pieces
        try serverWrites { buffer in
            var first = true
            while block.readableBytes > 0 {
                let piece = block.readSlice(length: min(size, block.readableBytes))!
                var flags: UInt8 = block.readableBytes == 0 ? HTTP2Wire.Flag.endHeaders : 0
                if first, endStream { flags |= HTTP2Wire.Flag.endStream }
                HTTP2Wire.writeFrameHeader(
                    into: &buffer, length: piece.readableBytes, type: first ? .headers : .continuation, flags: flags, streamID: streamID)
                buffer.writeImmutableBuffer(piece)
                first = false
            }
        }
    }
}

extension ServerFrame {
    var dataLength: Int? {
        if case .data(_, let data, _, _) = self { data.readableBytes } else { nil }
    }
    var endsStream: Bool {
        switch self {
        case .data(_, _, let end, _), .headers(_, _, let end, _): end
        default: false
        }
    }
    var isHeaders: Bool {
        if case .headers = self { true } else { false }
    }
    var goAwayCode: UInt32? {
        if case .goAway(_, let code, _) = self { code } else { nil }
    }
}
