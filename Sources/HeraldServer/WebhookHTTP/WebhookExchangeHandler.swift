import NIOCore
import NIOHTTP1

/// A webhook request as written on the wire.
struct WebhookRequest: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer
}

/// Runs `WebhookExchange` on one connection's channel: writes the request, reads the answer,
/// enforces the exchange's deadline, and completes its promise with the outcome. Lives on the
/// connection's event loop; `WebhookConnection` calls it there.
final class WebhookExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private var exchange: WebhookExchange
    private var context: ChannelHandlerContext?
    private var promise: EventLoopPromise<WebhookExchange.Finished>?
    private var deadline: Scheduled<Void>?

    init(maxBodyBytes: Int) {
        exchange = WebhookExchange(maxBodyBytes: maxBodyBytes)
    }

    /// Idle and open: may carry a request.
    var isReusable: Bool { exchange.isIdle && context?.channel.isActive == true }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sends `request`; `promise` gets the outcome, by `deadline` at the latest.
    func send(_ request: WebhookRequest, deadline: NIODeadline, promise: EventLoopPromise<WebhookExchange.Finished>) {
        self.promise = promise
        let action = exchange.send()
        guard action == .write, let context else {
            // Closed meanwhile (with its reason, when it had one), or removed.
            perform(action)
            self.promise?.succeed(WebhookExchange.Finished(outcome: .failed(.closedBeforeAnswer), keepConnection: false, answerBegan: false))
            self.promise = nil
            return
        }
        self.deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            self.perform(self.exchange.deadlinePassed())
        }
        perform(action, writing: request)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            perform(exchange.head(status: Int(head.status.code), keepAlive: head.isKeepAlive))
        case .body(let bytes):
            perform(exchange.body(bytes: bytes.readableBytes))
        case .end:
            perform(exchange.end())
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(exchange.closed())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        perform(exchange.failed(WebhookFailureText.describe(error)))
    }

    private func perform(_ action: WebhookExchange.Action, writing request: WebhookRequest? = nil) {
        switch action {
        case .none:
            break
        case .write:
            guard let context, let request else { return }
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .finish(let outcome, let keepConnection):
            deadline?.cancel()
            deadline = nil
            let promise = self.promise
            self.promise = nil
            if !keepConnection { context?.close(promise: nil) }
            promise?.succeed(
                WebhookExchange.Finished(outcome: outcome, keepConnection: keepConnection, answerBegan: exchange.answerBegan))
        case .close:
            context?.close(promise: nil)
        }
    }
}
