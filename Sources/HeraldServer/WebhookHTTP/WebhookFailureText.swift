import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The one-line reason a failed attempt is recorded with (docs/webhooks.md): never the URL,
/// which may carry a secret in its query.
enum WebhookFailureText {
    static func text(_ failure: WebhookExchange.Failure) -> String {
        switch failure {
        case .closedBeforeAnswer: return "the endpoint closed the connection"
        case .timedOut: return "timed out"
        case .switchedProtocols: return "the endpoint switched protocols (101)"
        case .failed(let reason): return reason
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case ChannelError.connectTimeout: return "timed out connecting"
        case ChannelError.ioOnClosedChannel, ChannelError.outputClosed, ChannelError.eof:
            return "the endpoint closed the connection"
        case NIOSSLError.uncleanShutdown: return "the endpoint closed the connection"
        case NIOSSLError.unableToValidateCertificate: return "TLS: the endpoint's certificate is not trusted"
        case is HTTPParserError: return "the endpoint's answer is not valid HTTP/1.1"
        default: break
        }
        let text = String(describing: error)
        for (needle, reason) in [
            ("connection refused", "connection refused"), ("certificate", "TLS: the endpoint's certificate is not trusted"),
            ("handshake", "TLS handshake failed"), ("connection reset", "the endpoint reset the connection"),
            ("no address", "the host name does not resolve"), ("name or service not known", "the host name does not resolve"),
            ("connecttimeout", "timed out connecting"),
            ("failedtovalidatehostname", "TLS: the endpoint's certificate does not name its host"),
        ] where text.lowercased().contains(needle) {
            return reason
        }
        return "\(type(of: error))"
    }
}
