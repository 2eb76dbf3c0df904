import APNSCore
import NIOCore
import NIOEmbedded
import NIOHTTP2

@testable import APNSClient

/// An independent HTTP/2 server for the connection state machine: swift-nio-http2's own
/// `NIOHTTP2Handler` in server mode on an `EmbeddedChannel`. It parses what the machine writes
/// with its own frame decoder and HPACK (and refuses anything RFC 9113 forbids), and encodes
/// what the test answers with its own encoder, so the machine is never judged by Herald's reader.
final class NIOHTTP2Peer {
    typealias Machine = APNSConnectionStateMachine<Int>

    let channel = EmbeddedChannel()

    init(maxConcurrentStreams: UInt32 = 100) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: Int(maxConcurrentStreams))]
        // The flood tests make the machine acknowledge hundreds of PINGs: the peer must take them.
        connection.controlFrameRateLimit.maximumCount = 10_000
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.streamResetFrameRateLimit.maximumCount = 100_000
        try channel.pipeline.syncOperations.addHandler(
            NIOHTTP2Handler(mode: .server, connectionConfiguration: connection, streamConfiguration: stream))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
    }

    /// Feeds the machine's output to the server; returns the frames the server parsed.
    @discardableResult
    func receive(from machine: inout Machine) throws -> [HTTP2Frame] {
        let bytes = machine.takeOutbound()
        guard bytes.readableBytes > 0 else { return [] }
        try channel.writeInbound(bytes)
        var frames = [HTTP2Frame]()
        while let frame = try channel.readInbound(as: HTTP2Frame.self) { frames.append(frame) }
        return frames
    }

    /// The server sends a frame (encoded by swift-nio-http2).
    func send(_ payload: HTTP2Frame.FramePayload, streamID: HTTP2StreamID = .rootStream) throws {
        try channel.writeOutbound(HTTP2Frame(streamID: streamID, payload: payload))
    }

    /// Everything the server wrote since the last call, handed to the machine.
    func deliver(to machine: inout Machine, now: NIODeadline) throws {
        var bytes = ByteBuffer()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&chunk) }
        if bytes.readableBytes > 0 { machine.read(bytes, now: now, writable: true) }
    }

    /// Preface, settings and acknowledgements both ways: the machine is ready.
    static func connected(
        _ configure: (inout Machine.Configuration) -> Void = { _ in }, maxConcurrentStreams: UInt32 = 100, now: NIODeadline
    ) throws -> (NIOHTTP2Peer, Machine) {
        var configuration = Machine.Configuration(
            authority: "api.push.apple.com", requestTimeout: .seconds(5), idlePingInterval: .seconds(3600),
            pingTimeout: .seconds(2), requiresAuthentication: false)
        configure(&configuration)
        var machine = Machine(configuration: configuration, now: now)
        let peer = try NIOHTTP2Peer(maxConcurrentStreams: maxConcurrentStreams)
        machine.channelActive()
        try peer.receive(from: &machine)
        try peer.deliver(to: &machine, now: now)
        try peer.receive(from: &machine)  // the machine's SETTINGS ack
        return (peer, machine)
    }

    static func request(_ number: Int, bodySize: Int = 64) -> Machine.Request {
        Machine.Request(
            notification: APNSNotification(
                token: try! DeviceToken(hex: String(format: "%064x", number)), bundleID: "com.example.herald",
                payload: Payload(aps: .init(alert: .body("Hello")))),
            body: Array(repeating: 0x20, count: bodySize), completion: number)
    }
}

extension APNSConnectionStateMachine {
    /// The effects of the last events, taken.
    mutating func drained() -> [Effect] {
        var all = [Effect]()
        takeEffects { all.append($0) }
        return all
    }
}

extension APNSConnectionStateMachine<Int>.Effect {
    var failure: (Int, APNSClientError)? {
        if case .fail(let number, let error) = self { (number, error) } else { nil }
    }
    var success: (Int, APNSResponse)? {
        if case .succeed(let number, let response, _) = self { (number, response) } else { nil }
    }
    var closeError: APNSClientError? {
        if case .close(let error) = self { error } else { nil }
    }
    var isReady: Bool {
        if case .ready = self { true } else { false }
    }
}

extension HTTP2Frame.FramePayload {
    var goAwayCode: HTTP2ErrorCode? {
        if case .goAway(_, let code, _) = self { code } else { nil }
    }
    var resetCode: HTTP2ErrorCode? {
        if case .rstStream(let code) = self { code } else { nil }
    }
    var isPing: Bool {
        if case .ping(_, ack: false) = self { true } else { false }
    }
    var isPingAck: Bool {
        if case .ping(_, ack: true) = self { true } else { false }
    }
}
