import AsyncHTTPClient
import HeraldDelivery
import NIOCore
import NIOHTTP1

/// Posts webhook messages with AsyncHTTPClient: pooled keep-alive connections per host, no
/// redirects followed (a 3xx is a failed attempt: the endpoint's URL should be fixed), and one
/// deadline for the whole exchange, answer body included.
final class HTTPWebhookTransport: WebhookTransport {
    private let client: HTTPClient
    /// At most this much of an answer's body is read; the rest is not waited for.
    static let maxAnswerBytes = 64 * 1024

    init() {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(5))
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func post(url: String, headers: [(String, String)], body: String, timeout: Duration) async -> WebhookAttemptResult {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = HTTPHeaders(headers)
        request.body = .bytes(ByteBuffer(string: body))
        let (seconds, attoseconds) = timeout.components
        let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(request, deadline: deadline)
            // Read the answer (so the connection can be reused), up to a bound.
            var read = 0
            for try await part in response.body {
                read += part.readableBytes
                if read > Self.maxAnswerBytes { break }
            }
            return .status(Int(response.status.code))
        } catch {
            return .failed(Self.describe(error))
        }
    }

    /// A one-line reason, without the URL (it may carry a secret in its query).
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout: return "timed out"
            case .connectTimeout: return "timed out connecting"
            case .remoteConnectionClosed: return "the endpoint closed the connection"
            case .invalidURL, .emptyHost, .emptyScheme: return "the URL cannot be used"
            default: return "HTTP client: \(error)"
            }
        }
        let text = String(describing: error)
        for (needle, reason) in [
            ("Connection refused", "connection refused"), ("certificate", "TLS: the endpoint's certificate is not trusted"),
            ("handshake", "TLS handshake failed"), ("No address", "the host name does not resolve"),
            ("Name or service not known", "the host name does not resolve"),
        ] where text.contains(needle) {
            return reason
        }
        return "\(type(of: error))"
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}
