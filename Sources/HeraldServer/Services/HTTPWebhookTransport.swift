import Foundation
import HeraldDelivery
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Posts webhook messages over HTTP/1.1 with connections kept per origin
/// (`WebhookConnectionPool`): no redirects followed (a 3xx is a failed attempt: the endpoint's
/// URL should be fixed), and one deadline for the whole exchange, answer included. Each
/// attempt costs two hops between the caller's task and the connection's event loop, and
/// nothing else (BENCHMARKS.md, "Webhook delivery: claims per endpoint, a client of Herald's own,
/// wake-ups").
public final class HTTPWebhookTransport: WebhookTransport {
    /// Nil: every address may be reached (`HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`).
    private let guardian: WebhookAddressGuard?
    private let targets = WebhookTargets()
    private let pool: WebhookConnectionPool
    /// At most this much of an answer's body is read; the rest is not waited for.
    static let maxAnswerBytes = 64 * 1024

    /// `trustRoots`: certificates to trust instead of the system's (tests' own authority).
    public init(allowPrivateAddresses: Bool = false, trustRoots: [NIOSSLCertificate]? = nil) {
        guardian = allowPrivateAddresses ? nil : WebhookAddressGuard()
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { tls.trustRoots = .certificates(trustRoots) }
        pool = WebhookConnectionPool(
            group: MultiThreadedEventLoopGroup.singleton, tls: try? NIOSSLContext(configuration: tls),
            maxBodyBytes: Self.maxAnswerBytes)
    }

    public func post(url: String, headers: [(String, String)], body: String, timeout: Duration) async -> WebhookAttemptResult {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        guard let target = targets.target(url) else { return .failed("the URL cannot be used") }
        var origin = target.origin
        if let guardian {
            switch await guardian.check(host: origin.host) {
            case .refused(let reason): return .failed(reason)
            case .reach(let address): origin.address = address
            }
        }
        var fields = HTTPHeaders()
        fields.reserveCapacity(headers.count + 2)
        fields.add(name: "host", value: origin.hostHeader)
        for (name, value) in headers { fields.add(name: name, value: value) }
        let bytes = ByteBuffer(string: body)
        fields.add(name: "content-length", value: String(bytes.readableBytes))
        let request = WebhookRequest(
            head: HTTPRequestHead(version: .http1_1, method: .POST, uri: target.requestTarget, headers: fields), body: bytes)
        switch await pool.exchange(request, to: origin, deadline: deadline) {
        case .answered(let status): return .status(status)
        case .failed(let failure): return .failed(WebhookFailureText.text(failure))
        }
    }

    public func shutdown() async {
        pool.closeAll()
    }
}
