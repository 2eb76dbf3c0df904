import APNSCore
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOTLS

/// One TLS connection's HTTP/2 to APNs: feeds `APNSConnectionStateMachine` with what happens
/// on the channel (bytes read, requests, the clock, writability, closing) and does what it
/// says: writes its bytes (one flush for a whole burst, only while the socket is writable),
/// delivers answers, closes. Also keeps the provider token fresh and publishes the status the
/// pool chooses connections by. Lives on the connection's event loop; `APNSConnection` calls
/// it there.
final class APNSConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    typealias Machine = APNSConnectionStateMachine<APNSCompletion>
    typealias Request = Machine.Request

    static var receiveWindow: Int { Machine.receiveWindow }

    let status: NIOLockedValueBox<APNSConnectionStatus>
    let ready: EventLoopPromise<Void>
    let tokenSource: ProviderTokenSource?
    let setupTimeout: TimeAmount
    let now: @Sendable () -> Date
    let metrics: APNSClientMetrics
    var logger: Logger

    var machine: Machine
    var context: ChannelHandlerContext?
    var tokenPolicy = ProviderTokenPolicy()
    var flushScheduled = false
    var ticker: Scheduled<Void>?
    var setupDeadline: Scheduled<Void>?

    init(
        configuration: Machine.Configuration, tokenSource: ProviderTokenSource?, setupTimeout: TimeAmount,
        now: @escaping @Sendable () -> Date, metrics: APNSClientMetrics, ready: EventLoopPromise<Void>,
        status: NIOLockedValueBox<APNSConnectionStatus>, logger: Logger
    ) {
        var configuration = configuration
        configuration.requiresAuthentication = tokenSource != nil
        machine = Machine(configuration: configuration, now: .now())
        self.tokenSource = tokenSource
        self.setupTimeout = setupTimeout
        self.now = now
        self.metrics = metrics
        self.ready = ready
        self.status = status
        self.logger = logger
    }

    // MARK: Requests

    /// Queues a request; it starts as soon as the stream limit allows.
    func submit(_ request: Request) {
        submit(CollectionOfOne(request))
    }

    /// Queues many requests at once: one hop onto the event loop and one flush for all.
    func submit(_ requests: some Collection<Request>) {
        guard let context else {
            let error = machine.closeReason ?? .unprocessed("the connection is closing")
            for request in requests { request.completion.fail(error) }
            return
        }
        // Queued first, started after the token is fresh: renewal is judged when streams need it.
        let now = NIODeadline.now()
        machine.submit(requests, now: now, writable: false)
        refreshProviderToken()
        machine.startWaiting(now: now, writable: context.channel.isWritable)
        afterEvent()
    }

    /// Stops taking requests; the open streams finish, then the connection closes.
    func drain() {
        machine.beginDraining(failingWaitingWith: .unprocessed("the connection is being retired"))
        afterEvent()
    }

    /// Uses a new provider token from the next request on, if the 20-minute floor allows
    /// (after 403 ExpiredProviderToken). Returns whether it did.
    func renewProviderToken() -> Bool {
        guard let tokenSource, tokenPolicy.mayRenew(now: now()) else { return false }
        guard let fresh = try? tokenSource.forceRenewal(now: now()) else { return false }
        tokenPolicy.renewed(token: fresh.token, issuedAt: fresh.issuedAt, now: now())
        machine.useProviderToken(fresh.token)
        return true
    }

    /// Signs a new provider token when the current one is old (docs/apns.md, "Provider tokens").
    /// Only when requests wait to start: renewing is judged at the moment a stream needs it.
    private func refreshProviderToken() {
        guard let tokenSource, machine.hasWaiting, tokenPolicy.needsRenewal(now: now()) else { return }
        do {
            let fresh = try tokenSource.token(now: now())
            tokenPolicy.renewed(token: fresh.token, issuedAt: fresh.issuedAt, now: now())
            machine.useProviderToken(fresh.token)
        } catch {
            machine.failWaiting(with: .credentialsRejected("the signing key cannot sign provider tokens"))
        }
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        machine.useOutboundBuffer(context.channel.allocator.buffer(capacity: 64 * 1024))
        // TLS, ALPN and the server's SETTINGS must all arrive within the connect timeout.
        setupDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: setupTimeout) { [self] in
            machine.setupTimedOut()
            afterEvent()
        }
        scheduleTick(context: context)
        if context.channel.isActive { channelBecameActive() }
    }

    /// The clock for deadlines and PINGs, while the channel lives.
    private func scheduleTick(context: ChannelHandlerContext) {
        ticker = context.eventLoop.assumeIsolated().scheduleTask(in: machine.tickInterval) { [self] in
            guard let context = self.context else { return }
            refreshProviderToken()
            machine.tick(now: .now(), writable: context.channel.isWritable)
            afterEvent()
            if self.context != nil { scheduleTick(context: context) }
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        channelBecameActive()
        context.fireChannelActive()
    }

    private func channelBecameActive() {
        machine.channelActive()
        flushNow()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        refreshProviderToken()
        machine.read(unwrapInboundIn(data), now: .now(), writable: context.channel.isWritable)
        afterEvent()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        machine.writabilityChanged(writable: context.channel.isWritable, now: .now())
        afterEvent()
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent, negotiated != "h2" {
            machine.close(.alpnNotNegotiated)
            afterEvent()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("APNs connection error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        let reason = APNSClientError.handshakeRefusal(String(describing: error)) ?? .connectionLost("the connection failed")
        machine.close(machine.closeReason ?? reason)
        afterEvent()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ticker?.cancel()
        setupDeadline?.cancel()
        machine.channelClosed()
        ready.fail(machine.closeReason ?? .connectionLost("the connection closed"))
        afterEvent()
        self.context = nil
        context.fireChannelInactive()
    }

    // MARK: Doing what the machine says

    /// After every event: counts, delivers answers, closes if asked, publishes the status and
    /// schedules one flush for whatever the event wrote.
    private func afterEvent() {
        let started = machine.takeStartedCount()
        if started > 0 { metrics.sent.increment(by: started) }
        var closing: APNSClientError?
        machine.takeEffects { effect in
            switch effect {
            case .succeed(let completion, let response, let latency):
                metrics.latency.recordNanoseconds(latency.nanoseconds)
                completion.succeed(response)
            case .fail(let completion, let error):
                completion.fail(error)
            case .ready:
                setupDeadline?.cancel()
                ready.succeed()
            case .goAway(let reason):
                logger.notice("APNs sent GOAWAY; draining the connection", metadata: ["apns.goaway.reason": "\(reason)"])
                metrics.goAways.increment()
            case .timedOut(let count):
                logger.warning("APNs requests timed out; resetting them and checking the connection", metadata: ["count": "\(count)"])
                metrics.timeouts.increment(by: count)
            case .close(let error):
                closing = error
            }
        }
        publishStatus()
        if let closing, let context {
            if case .pingTimeout = closing.code { logger.warning("APNs connection did not answer a PING; closing it") }
            logger.debug("closing the APNs connection", metadata: ["reason": "\(closing.detail)"])
            flushNow()
            ready.fail(closing)
            context.close(promise: nil)
        } else if let context {
            scheduleFlush(context: context)
        }
    }

    private func publishStatus() {
        let phase = machine.statusPhase
        let inFlight = machine.inFlight
        let limit = machine.streamLimit
        let suspect = machine.suspect
        status.withLockedValue {
            $0.phase = phase
            $0.inFlight = inFlight
            $0.streamLimit = limit
            $0.suspect = suspect
        }
    }

    /// Many frames per flush: one TLS write for a whole burst of requests and answers.
    private func scheduleFlush(context: ChannelHandlerContext) {
        guard machine.outbound.readableBytes > 0, !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            self.flushNow()
        }
    }

    /// Writes only while the socket takes more: a peer that stops reading makes Herald stop
    /// writing (the bytes wait in `outbound`) instead of filling NIO's buffers.
    private func flushNow() {
        guard let context, machine.outbound.readableBytes > 0, context.channel.isWritable || machine.closeReason != nil
        else { return }
        context.writeAndFlush(wrapOutboundOut(machine.takeOutbound()), promise: nil)
    }
}
