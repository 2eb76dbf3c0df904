import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

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
                    try pipeline.addHandler(WebhookExchangeHandler(maxBodyBytes: maxBodyBytes))
                }
            }
            .connect(host: origin.address ?? origin.host, port: origin.port).get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: WebhookExchangeHandler.self), eventLoop: channel.eventLoop)
        }.get()
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

    func close() {
        channel.close(promise: nil)
    }
}
