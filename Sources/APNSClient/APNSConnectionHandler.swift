import APNSCore
import DequeModule
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK

/// Speaks HTTP/2 to APNs on one TLS connection, at the byte level: one stream per
/// notification, every frame of a burst of requests appended to one buffer and written with
/// one flush, the server's stream limit and flow-control windows obeyed, GOAWAY drained, idle
/// connections pinged. Only what an APNs client needs of RFC 9113 is here: no server push,
/// no priorities, responses of a few hundred bytes. Lives on the connection's event loop;
/// `APNSConnection` calls it there.
final class APNSConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Request {
        var notification: APNSNotification
        var body: [UInt8]
        var completion: APNSCompletion
    }

    struct Stream {
        var completion: APNSCompletion
        var started: NIODeadline
        var sendWindow: Int
        var status: Int?
        var apnsID: String?
        var body: [UInt8] = []
        /// The request body not yet sent for want of flow-control window.
        var unsent: ArraySlice<UInt8>?
    }

    /// What Herald announces (RFC 9113 §6.5.2): no push, and 1 MiB windows so that the
    /// server never waits for a WINDOW_UPDATE for the small answers APNs sends.
    static let receiveWindow = 1 << 20
    static let settings: [(HTTP2Wire.Setting, UInt32)] = [
        (.enablePush, 0), (.maxConcurrentStreams, 0), (.initialWindowSize, UInt32(receiveWindow)),
    ]
    /// RFC 9113 leaves the stream limit open until the server names one; Herald caps it.
    static let defaultStreamLimit = 1000
    /// The most of an error answer kept (APNs's are under 100 bytes).
    static let maximumResponseBody = 16_384

    let status: NIOLockedValueBox<APNSConnectionStatus>
    let ready: EventLoopPromise<Void>
    let authority: String
    let tokenSource: ProviderTokenSource?
    let idlePingInterval: TimeAmount
    let pingTimeout: TimeAmount
    let setupTimeout: TimeAmount
    let now: @Sendable () -> Date
    let metrics: APNSClientMetrics
    var logger: Logger

    var context: ChannelHandlerContext?
    var outbound = ByteBuffer()
    var reader = HTTP2FrameReader()
    var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    var encoder = HPACKRequestEncoder()
    /// HEADERS waiting for their CONTINUATION frames.
    var pendingHeaderBlock: (streamID: Int, block: ByteBuffer, endStream: Bool)?
    var prefaceSent = false
    var nextStreamID = 1
    var streams = [Int: Stream]()
    var waiting = Deque<Request>()
    var blocked = Deque<Int>()
    var connectionSendWindow = HTTP2Wire.defaultWindowSize
    var initialStreamWindow = HTTP2Wire.defaultWindowSize
    var maxFrameSize = HTTP2Wire.defaultMaxFrameSize
    var receivedSinceWindowUpdate = 0
    var serverStreamLimit = 1
    var settingsReceived = false
    var authenticated = false
    var draining = false
    var closeReason: APNSClientError?
    var tokenPolicy = ProviderTokenPolicy()
    var indexing = HeaderIndexingState()
    var flushScheduled = false
    var lastActivity = NIODeadline.now()
    var idleCheck: Scheduled<Void>?
    var pingDeadline: Scheduled<Void>?
    var setupDeadline: Scheduled<Void>?

    init(
        authority: String, tokenSource: ProviderTokenSource?, idlePingInterval: TimeAmount, pingTimeout: TimeAmount,
        setupTimeout: TimeAmount, now: @escaping @Sendable () -> Date, metrics: APNSClientMetrics, ready: EventLoopPromise<Void>,
        status: NIOLockedValueBox<APNSConnectionStatus>, logger: Logger
    ) {
        self.authority = authority
        self.tokenSource = tokenSource
        self.idlePingInterval = idlePingInterval
        self.pingTimeout = pingTimeout
        self.setupTimeout = setupTimeout
        self.now = now
        self.metrics = metrics
        self.ready = ready
        self.status = status
        self.logger = logger
        authenticated = tokenSource == nil
    }

    // MARK: Requests

    /// Queues a request; it starts as soon as the stream limit allows.
    func submit(_ request: Request) {
        submit(CollectionOfOne(request))
    }

    /// Queues many requests at once: one hop onto the event loop and one flush for all.
    func submit(_ requests: some Collection<Request>) {
        guard let context, !draining, closeReason == nil else {
            let error = closeReason ?? .unprocessed("the connection is closing")
            for request in requests { request.completion.fail(error) }
            return
        }
        waiting.append(contentsOf: requests)
        startWaiting(context: context)
    }

    /// Uses a new provider token from the next request on, if the 20-minute floor allows
    /// (after 403 ExpiredProviderToken). Returns whether it did.
    func renewProviderToken() -> Bool {
        guard let tokenSource, tokenPolicy.mayRenew(now: now()) else { return false }
        guard let fresh = try? tokenSource.forceRenewal(now: now()) else { return false }
        tokenPolicy.renewed(token: fresh.token, issuedAt: fresh.issuedAt, now: now())
        return true
    }

    var streamLimit: Int { authenticated ? serverStreamLimit : min(serverStreamLimit, 1) }

    func startWaiting(context: ChannelHandlerContext) {
        guard settingsReceived else { return }
        // Backpressure: while the socket cannot take more, requests wait here rather than pile
        // up in NIO's buffers (channelWritabilityChanged starts them again).
        while !draining, streams.count < streamLimit, context.channel.isWritable, let request = waiting.popFirst() {
            start(request)
        }
        publishStatus()
        scheduleFlush(context: context)
    }

    private func start(_ request: Request) {
        var token: String?
        if let tokenSource {
            if tokenPolicy.needsRenewal(now: now()) {
                do {
                    let fresh = try tokenSource.token(now: now())
                    tokenPolicy.renewed(token: fresh.token, issuedAt: fresh.issuedAt, now: now())
                } catch {
                    request.completion.fail(.credentialsRejected("the signing key cannot sign provider tokens"))
                    return
                }
            }
            token = tokenPolicy.token
        }
        guard nextStreamID <= HTTP2Wire.maxStreamID else {
            // RFC 9113 §5.1.1: stream IDs cannot be reused; this connection is done.
            let exhausted = APNSClientError.unprocessed("the connection has used all its stream IDs")
            request.completion.fail(exhausted)
            beginDraining(failingWaitingWith: exhausted)
            return
        }
        let streamID = nextStreamID
        nextStreamID += 2
        // A request's header block is well under 1 KB and every server takes 16 KB frames
        // (RFC 9113 §4.2), so it always fits one HEADERS frame.
        let frame = HTTP2Wire.beginFrame(into: &outbound, type: .headers, flags: HTTP2Wire.Flag.endHeaders, streamID: streamID)
        encoder.beginBlock(into: &outbound)
        encoder.encode(APNSHeader(name: ":authority", value: authority, indexing: .incremental), into: &outbound)
        encoder.encode(request.notification.requestHeaders(providerToken: token, indexing: &indexing), into: &outbound)
        HTTP2Wire.endFrame(in: &outbound, startedAt: frame)
        var stream = Stream(completion: request.completion, started: .now(), sendWindow: initialStreamWindow)
        stream.unsent = writeBody(request.body[...], streamID: streamID, window: &stream.sendWindow)
        if stream.unsent != nil { blocked.append(streamID) }
        streams[streamID] = stream
        metrics.sent.increment()
    }

    /// Writes as much of a request body as the flow-control windows allow (RFC 9113 §5.2)
    /// and returns the rest, which waits for a WINDOW_UPDATE.
    func writeBody(_ body: ArraySlice<UInt8>, streamID: Int, window: inout Int) -> ArraySlice<UInt8>? {
        var rest = body
        while true {
            let length = min(rest.count, connectionSendWindow, window, maxFrameSize)
            // An empty body still ends the stream; a non-empty one needs some window.
            guard length == rest.count || length > 0 else { return rest }
            HTTP2Wire.writeData(into: &outbound, streamID: streamID, bytes: rest.prefix(length), endStream: length == rest.count)
            connectionSendWindow -= length
            window -= length
            rest = rest.dropFirst(length)
            if rest.isEmpty { return nil }
        }
    }

    /// After a window grew: sends what flow control held back, oldest stream first.
    func resumeBlocked() {
        guard !blocked.isEmpty else { return }
        var stillBlocked = Deque<Int>()
        while let streamID = blocked.popFirst() {
            guard var stream = streams[streamID], let unsent = stream.unsent else { continue }
            stream.unsent = writeBody(unsent, streamID: streamID, window: &stream.sendWindow)
            if stream.unsent != nil { stillBlocked.append(streamID) }
            streams[streamID] = stream
        }
        blocked = stillBlocked
    }

    func publishStatus() {
        let inFlight = streams.count + waiting.count
        let limit = streamLimit
        status.withLockedValue {
            $0.inFlight = inFlight
            $0.streamLimit = limit
        }
        if draining, streams.isEmpty { context?.close(promise: nil) }
    }

    /// Many frames per flush: one TLS write for a whole burst of requests and answers.
    func scheduleFlush(context: ChannelHandlerContext) {
        guard outbound.readableBytes > 0, !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            self.flushNow()
        }
    }

    func flushNow() {
        guard let context, outbound.readableBytes > 0 else { return }
        context.writeAndFlush(wrapOutboundOut(outbound), promise: nil)
        outbound.clear()
    }
}
