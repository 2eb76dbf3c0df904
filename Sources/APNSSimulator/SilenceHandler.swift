import NIOCore

/// Sits between TLS and HTTP/2 and, once told to, swallows every outbound HTTP/2 byte:
/// responses, PING acks, WINDOW_UPDATEs. The TCP and TLS session stay up, so the peer sees
/// a connection that accepts writes but never answers, the failure keepalive PINGs exist to
/// detect (docs/apns.md "The connection": PING also checks health).
final class SilenceHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Once true, writes succeed without leaving the process.
    private(set) var isSilent = false

    init() {}

    func silence() {
        isSilent = true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if isSilent {
            promise?.succeed(())
        } else {
            context.write(data, promise: promise)
        }
    }
}

@available(*, unavailable)
extension SilenceHandler: Sendable {}
