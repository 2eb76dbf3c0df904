import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request does not arrive whole (head to end of body) within its
/// deadline. The idle timeout cannot catch a body trickled a byte at a time, since each byte
/// counts as activity; this bounds the whole request. Device imports get their own, longer
/// bound (the import answers 408 itself before this one ends the connection).
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadline: @Sendable (String) -> TimeAmount
    private var timer: Scheduled<Void>?

    /// `deadline` gives a request's bound from its path.
    public init(deadline: @escaping @Sendable (String) -> TimeAmount) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            timer?.cancel()
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline(head.path ?? "")) {
                context.close(promise: nil)
            }
        case .end:
            timer?.cancel()
            timer = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
