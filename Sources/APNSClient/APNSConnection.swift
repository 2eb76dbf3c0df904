import APNSCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// One TLS HTTP/2 connection to APNs. Requests go to its `APNSConnectionHandler` on the
/// connection's event loop; the pool reads `status` to choose where to send.
final class APNSConnection: Sendable {
    let channel: any Channel
    private let handler: NIOLoopBound<APNSConnectionHandler>
    private let statusBox: NIOLockedValueBox<APNSConnectionStatus>

    var status: APNSConnectionStatus { statusBox.withLockedValue { $0 } }

    private init(channel: any Channel, handler: NIOLoopBound<APNSConnectionHandler>, status: NIOLockedValueBox<APNSConnectionStatus>) {
        self.channel = channel
        self.handler = handler
        self.statusBox = status
    }

    /// Connects, completes TLS with ALPN h2, and waits for the server's SETTINGS.
    /// DNS is resolved afresh for every connection (docs/apns.md, "The connection"): NIO's resolver keeps no cache.
    static func connect(
        endpoint: APNSEndpoint, tls: NIOSSLContext, tokenSource: ProviderTokenSource?,
        configuration: APNSClientConfiguration, metrics: APNSClientMetrics, group: any EventLoopGroup, logger: Logger
    ) async throws -> APNSConnection {
        let eventLoop = group.next()
        let ready = eventLoop.makePromise(of: Void.self)
        let status = NIOLockedValueBox(APNSConnectionStatus())
        let serverHostname = endpoint.host.isIPAddress ? nil : endpoint.host
        let boundHandler = NIOLockedValueBox<NIOLoopBound<APNSConnectionHandler>?>(nil)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(configuration.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = APNSConnectionHandler(
                        configuration: .init(
                            authority: endpoint.host, requestTimeout: configuration.requestTimeout,
                            idlePingInterval: configuration.idlePingInterval, pingTimeout: configuration.pingTimeout,
                            requiresAuthentication: tokenSource != nil),
                        tokenSource: tokenSource, setupTimeout: configuration.connectTimeout,
                        now: configuration.now, metrics: metrics, ready: ready, status: status, logger: logger)
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    try sync.addHandler(handler)
                    boundHandler.withLockedValue { $0 = NIOLoopBound(handler, eventLoop: channel.eventLoop) }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            // No channel, so no handler to complete the promise: failed here, or it would be
            // dropped unfulfilled (NIO counts that as a leak).
            ready.fail(APNSClientError.connectFailed("cannot connect to \(endpoint)"))
            throw APNSClientError.connectFailed("cannot connect to \(endpoint)")
        }
        do {
            try await ready.futureResult.get()
        } catch {
            channel.close(promise: nil)
            throw (error as? APNSClientError) ?? .connectFailed("TLS or HTTP/2 setup with \(endpoint) failed")
        }
        guard let handler = boundHandler.withLockedValue({ $0 }) else {
            throw APNSClientError.connectFailed("the connection to \(endpoint) was not set up")
        }
        return APNSConnection(channel: channel, handler: handler, status: status)
    }

    /// Sends one notification whose payload is already encoded and validated.
    func send(_ notification: APNSNotification, body: [UInt8]) async throws -> APNSResponse {
        let handler = self.handler
        let loop = channel.eventLoop
        // The answer resumes this task from the loop: no promise and no future between them.
        return try await withUnsafeThrowingContinuation { continuation in
            loop.execute {
                handler.value.submit(.init(notification: notification, body: body, completion: .task(continuation)))
            }
        }
    }

    /// Sends a broadcast or a channel management request whose body is already encoded.
    func send(_ request: APNSChannelRequest, body: [UInt8]) async throws -> APNSResponse {
        let handler = self.handler
        let loop = channel.eventLoop
        return try await withUnsafeThrowingContinuation { continuation in
            loop.execute {
                handler.value.submit(.init(channelRequest: request, body: body, completion: .task(continuation)))
            }
        }
    }

    /// Sends the batch's notifications at `places`, whose payloads are already encoded and
    /// validated, with one hop onto the event loop and one back: the answers come in the order
    /// of `places`.
    func send(batch: APNSRequestBatch, places: ArraySlice<Int>) async -> [APNSBatchCollector.Outcome] {
        guard !places.isEmpty else { return [] }
        let promise = channel.eventLoop.makePromise(of: [APNSBatchCollector.Outcome].self)
        let collector = APNSBatchCollector(count: places.count, promise: promise)
        let handler = self.handler
        channel.eventLoop.execute {
            // Made on the loop straight into the connection's queue: each request names its
            // notification's place in the batch, and no array of requests is kept.
            handler.value.submit(
                places.enumerated().lazy.map { offset, place in
                    APNSConnectionHandler.Request(batch: batch, index: place, completion: .batch(collector, index: offset))
                })
        }
        do {
            return try await promise.futureResult.get()
        } catch {
            return Array(repeating: .failure(.connectionLost("the connection failed")), count: places.count)
        }
    }

    /// After 403 ExpiredProviderToken: use a fresh token if the 20-minute floor allows.
    func renewProviderToken() async -> Bool {
        let handler = self.handler
        return (try? await channel.eventLoop.submit { handler.value.renewProviderToken() }.get()) ?? false
    }

    /// Retires the connection: no new streams; it closes once the open ones are answered.
    func drain() {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.drain() }
    }

    func close() async {
        try? await channel.close()
    }
}

/// The notifications of one call of the batch API and their checked bodies, at the same
/// positions; each connection's share names its positions. Shared, not copied: a request
/// holds the batch and its place in it, and the notification is read from here when its
/// headers are written.
final class APNSRequestBatch: Sendable {
    let notifications: [APNSNotification]
    let bodies: [[UInt8]]

    init(notifications: [APNSNotification], bodies: [[UInt8]]) {
        self.notifications = notifications
        self.bodies = bodies
    }
}

extension String {
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
