import Metrics
import APNSCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Speaks APNs on one HTTP/2 connection at the frame level: one stream per notification,
/// many requests written per flush, the server's stream limit obeyed, GOAWAY drained, idle
/// connections pinged. Lives on the connection's event loop; `APNSConnection` calls it there.
final class APNSConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    struct Request {
        var notification: APNSNotification
        var body: [UInt8]
        var completion: APNSCompletion
    }

    private struct Stream {
        var completion: APNSCompletion
        var started: NIODeadline
        var status: Int?
        var apnsID: String?
        var body: [UInt8] = []
    }

    let status: NIOLockedValueBox<APNSConnectionStatus>
    let ready: EventLoopPromise<Void>
    private let authority: String
    private let tokenSource: ProviderTokenSource?
    private let idlePingInterval: TimeAmount
    private let pingTimeout: TimeAmount
    private let setupTimeout: TimeAmount
    private let now: @Sendable () -> Date
    private let metrics: APNSClientMetrics
    private var logger: Logger

    private var context: ChannelHandlerContext?
    private var nextStreamID = HTTP2StreamID(1)
    private var streams = [HTTP2StreamID: Stream]()
    private var waiting = CircularBuffer<Request>()
    private var serverStreamLimit = 1
    private var settingsReceived = false
    private var authenticated = false
    private var draining = false
    private var closeReason: APNSClientError?
    private var tokenPolicy = ProviderTokenPolicy()
    private var indexing = HeaderIndexingState()
    private var flushScheduled = false
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    private var pingDeadline: Scheduled<Void>?
    private var setupDeadline: Scheduled<Void>?

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
        guard let context, !draining, closeReason == nil else {
            request.completion.fail(closeReason ?? .unprocessed("the connection is closing"))
            return
        }
        waiting.append(request)
        startWaiting(context: context)
    }

    /// Queues many requests at once: one hop onto the event loop and one flush for all.
    func submit(_ requests: [Request]) {
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

    private var streamLimit: Int { authenticated ? serverStreamLimit : min(serverStreamLimit, 1) }

    private func startWaiting(context: ChannelHandlerContext) {
        guard settingsReceived else { return }
        var started = false
        // Backpressure: while the socket cannot take more, requests wait here rather than pile
        // up in NIO's buffers (channelWritabilityChanged starts them again).
        while streams.count < streamLimit, context.channel.isWritable, let request = waiting.popFirst() {
            start(request, context: context)
            started = true
        }
        publishStatus()
        guard started, !flushScheduled else { return }
        // Many requests per flush: one TLS record batch instead of one per header.
        flushScheduled = true
        context.eventLoop.execute {
            self.flushScheduled = false
            self.context?.flush()
        }
    }

    private func start(_ request: Request, context: ChannelHandlerContext) {
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
        let streamID = nextStreamID
        nextStreamID = HTTP2StreamID(Int(nextStreamID) + 2)
        var headers = HPACKHeaders()
        headers.reserveCapacity(11)
        headers.add(name: ":authority", value: authority, indexing: .indexable)
        for header in request.notification.requestHeaders(providerToken: token, indexing: &indexing) {
            headers.add(name: header.name, value: header.value, indexing: Self.hpack(header.indexing))
        }
        streams[streamID] = Stream(completion: request.completion, started: .now())
        let buffer = context.channel.allocator.buffer(bytes: request.body)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))), promise: nil)
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))),
            promise: nil)
        metrics.sent.increment()
    }

    private static func hpack(_ indexing: APNSHeader.Indexing) -> HPACKIndexing {
        switch indexing {
        case .incremental: .indexable
        case .withoutIndexing: .nonIndexable
        case .neverIndexed: .neverIndexed
        }
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // Only what the server sends proves the connection alive.
        lastActivity = .now()
        switch frame.payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                serverStreamLimit = setting.value
            }
            if !settingsReceived {
                settingsReceived = true
                setupDeadline?.cancel()
                status.withLockedValue { $0.phase = .ready }
                ready.succeed()
                // Keepalive starts once the connection is up; setup has its own deadline.
                scheduleIdleCheck(context: context)
            }
            startWaiting(context: context)
        case .headers(let headers):
            guard var stream = streams[frame.streamID] else { return }
            if stream.status == nil {
                stream.status = headers.headers.first(name: ":status").flatMap { Int($0) }
                stream.apnsID = headers.headers.first(name: "apns-id")
            }
            streams[frame.streamID] = stream
            if headers.endStream { complete(frame.streamID, context: context) }
        case .data(let data):
            guard case .byteBuffer(let buffer) = data.data, streams[frame.streamID] != nil else { return }
            streams[frame.streamID]!.body.append(contentsOf: buffer.readableBytesView)
            if data.endStream { complete(frame.streamID, context: context) }
        case .rstStream(let code):
            guard let stream = streams.removeValue(forKey: frame.streamID) else { return }
            stream.completion.fail(.streamReset("APNs reset the stream (\(code))"))
            startWaiting(context: context)
        case .goAway(let lastStreamID, let code, let opaqueData):
            goAway(lastStreamID: lastStreamID, code: code, opaqueData: opaqueData, context: context)
        case .ping(_, ack: true):
            pingDeadline?.cancel()
            pingDeadline = nil
        default:
            break
        }
    }

    private func complete(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let response = APNSResponse(status: stream.status ?? 0, apnsIDHeader: stream.apnsID, body: stream.body)
        // APNS.md "Connection": with token auth, many streams only after an accepted request.
        if response.status == 200, !authenticated { authenticated = true }
        metrics.latency.recordNanoseconds((NIODeadline.now() - stream.started).nanoseconds)
        stream.completion.succeed(response)
        startWaiting(context: context)
    }

    /// APNS.md "Connection": streams above the GOAWAY's last-stream-id were not processed and
    /// may be retried elsewhere; those below finish here.
    private func goAway(lastStreamID: HTTP2StreamID, code: HTTP2ErrorCode, opaqueData: ByteBuffer?, context: ChannelHandlerContext) {
        let reason = opaqueData.flatMap(Self.goAwayReason) ?? "\(code)"
        logger.notice("APNs sent GOAWAY; draining the connection", metadata: ["apns.goaway.reason": "\(reason)"])
        metrics.goAways.increment()
        draining = true
        status.withLockedValue { $0.phase = .draining }
        let unprocessed = APNSClientError.unprocessed("APNs closed the connection (\(reason)) before processing this stream")
        for (id, stream) in streams where id > lastStreamID {
            streams.removeValue(forKey: id)
            stream.completion.fail(unprocessed)
        }
        while let request = waiting.popFirst() { request.completion.fail(unprocessed) }
        publishStatus()
        if streams.isEmpty { context.close(promise: nil) }
    }

    static func goAwayReason(_ buffer: ByteBuffer) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
            return nil
        }
        return object["reason"] as? String
    }

    private func publishStatus() {
        let inFlight = streams.count + waiting.count
        let limit = streamLimit
        status.withLockedValue {
            $0.inFlight = inFlight
            $0.streamLimit = limit
        }
        if draining, streams.isEmpty { context?.close(promise: nil) }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // TLS, ALPN and the server's SETTINGS must all arrive within the connect timeout.
        setupDeadline = context.eventLoop.scheduleTask(in: setupTimeout) { [self] in
            guard let context = self.context, !settingsReceived else { return }
            fail(with: .connectFailed("TLS and HTTP/2 setup took longer than the connect timeout"), context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { startWaiting(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent, negotiated != "h2" {
            fail(with: .alpnNotNegotiated, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("APNs connection error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        fail(with: closeReason ?? .connectionLost("the connection failed"), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let reason = closeReason ?? .connectionLost("the connection closed before APNs answered")
        closeReason = reason
        idleCheck?.cancel()
        pingDeadline?.cancel()
        setupDeadline?.cancel()
        ready.fail(reason)
        for (_, stream) in streams { stream.completion.fail(reason) }
        streams.removeAll()
        while let request = waiting.popFirst() { request.completion.fail(reason) }
        status.withLockedValue {
            $0.phase = .closed
            $0.inFlight = 0
        }
        self.context = nil
        context.fireChannelInactive()
    }

    private func fail(with error: APNSClientError, context: ChannelHandlerContext) {
        if closeReason == nil { closeReason = error }
        ready.fail(error)
        context.close(promise: nil)
    }

    /// APNS.md "Connection": PING an idle connection; one that does not answer is dead.
    private func scheduleIdleCheck(context: ChannelHandlerContext) {
        idleCheck = context.eventLoop.scheduleTask(in: idlePingInterval) { [self] in
            guard let context = self.context else { return }
            if NIODeadline.now() - lastActivity >= idlePingInterval, pingDeadline == nil {
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false))),
                    promise: nil)
                pingDeadline = context.eventLoop.scheduleTask(in: pingTimeout) { [self] in
                    guard let context = self.context else { return }
                    logger.warning("APNs connection did not answer a PING; closing it")
                    fail(with: .pingTimeout, context: context)
                }
            }
            scheduleIdleCheck(context: context)
        }
    }
}
