import Logging
import NIOCore
import NIOHTTP2

/// The last handler of a connection: logs errors at debug level (clients that hang up are
/// normal for a test server) and closes the connection on TLS and I/O errors. HTTP/2
/// errors are left to `NIOHTTP2Handler`, which has already reset the stream or sent GOAWAY.
final class ConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The type only: some HTTP/2 errors carry header values, which may be secret (docs/rules.md rule 9).
        logger.debug("simulator connection error", metadata: ["error": "\(type(of: error))"])
        if !(error is any NIOHTTP2Error) {
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension ConnectionErrorHandler: Sendable {}
