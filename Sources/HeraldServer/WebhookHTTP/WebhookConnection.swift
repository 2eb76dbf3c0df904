import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One keep-alive HTTP/1.1 connection (over TLS for https) to a webhook endpoint's origin,
/// carrying one request at a time.
final class WebhookConnection: Sendable {
    let origin: WebhookOrigin
    let channel: any Channel
    private let handler: NIOLoopBound<WebhookExchangeHandler>

    private init(origin: WebhookOrigin, channel: any Channel, handler: NIOLoopBound<WebhookExchangeHandler>) {
        self.origin = origin
        self.channel = channel
        self.handler = handler
    }

    /// Connects, giving up at `deadline` (and after `connectTimeout` at most).
    static func connect(
        to origin: WebhookOrigin, tls: NIOSSLContext?, maxBodyBytes: Int, connectTimeout: TimeAmount,
        deadline: NIODeadline, group: any EventLoopGroup
    ) async throws -> WebhookConnection {
        let left = deadline - .now()
        // The handler as the initializer made it: a TLS handshake may fail (and the pipeline
        // be torn down) before the request is handed over, and its reason is kept there.
        let slot = HandlerSlot()
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(max(.milliseconds(1), min(connectTimeout, left)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls {
                        try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: origin.serverName))
                    }
                    try pipeline.addHTTPClientHandlers()
                    let handler = WebhookExchangeHandler(maxBodyBytes: maxBodyBytes)
                    try pipeline.addHandler(handler)
                    slot.handler.withLock { $0 = NIOLoopBound(handler, eventLoop: channel.eventLoop) }
                }
            }
            .connect(host: origin.address ?? origin.host, port: origin.port).get()
        guard let handler = slot.handler.withLock({ $0 }) else {
            channel.close(promise: nil)
            throw ChannelPipelineError.notFound
        }
        return WebhookConnection(origin: origin, channel: channel, handler: handler)
    }

    /// Sends `request` and waits for its answer, until `deadline` at most.
    func exchange(_ request: WebhookRequest, deadline: NIODeadline) async -> WebhookExchange.Finished {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: WebhookExchange.Finished.self)
        let handler = self.handler
        loop.execute { handler.value.send(request, deadline: deadline, promise: promise) }
        // The promise is only ever succeeded.
        return (try? await promise.futureResult.get())
            ?? WebhookExchange.Finished(outcome: .failed(.closedBeforeAnswer), keepConnection: false)
    }

    var isOpen: Bool { channel.isActive }

    /// Where the channel initializer leaves the connection's handler.
    private final class HandlerSlot: Sendable {
        let handler = Mutex<NIOLoopBound<WebhookExchangeHandler>?>(nil)
    }

    func close() {
        channel.close(promise: nil)
    }
}
