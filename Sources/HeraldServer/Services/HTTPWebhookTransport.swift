import AsyncHTTPClient
import Foundation
import HeraldDelivery
import NIOCore
import NIOHTTP1
import Synchronization

/// Posts webhook messages with AsyncHTTPClient: pooled keep-alive connections per host, no
/// redirects followed (a 3xx is a failed attempt: the endpoint's URL should be fixed), and one
/// deadline for the whole exchange, answer body included.
public final class HTTPWebhookTransport: WebhookTransport {
    private let client: HTTPClient
    /// Nil: every address may be reached (`HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`).
    private let guardian: WebhookAddressGuard?
    /// Clients pinned to the address the guard checked, by host and address: the connection
    /// goes where the check looked, with the host's name kept for TLS and `Host`.
    private let pinned = Mutex<[String: HTTPClient]>([:])
    /// At most this much of an answer's body is read; the rest is not waited for.
    static let maxAnswerBytes = 64 * 1024
    static let maxPinnedClients = 64

    public init(allowPrivateAddresses: Bool = false) {
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration())
        guardian = allowPrivateAddresses ? nil : WebhookAddressGuard()
    }

    private static func configuration(pinning host: String? = nil, to address: String? = nil) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(5))
        configuration.decompression = .disabled
        if let host, let address { configuration.dnsOverride = [host: address] }
        return configuration
    }

    private enum Route {
        case through(HTTPClient)
        case refused(String)
    }

    /// The client to reach `url` with, or why it must not be reached.
    private func route(_ url: String) async -> Route {
        guard let guardian else { return .through(client) }
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return .refused("the URL cannot be used") }
        switch await guardian.check(host: host) {
        case .refused(let reason):
            return .refused(reason)
        case .reach(let address) where address == host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")):
            return .through(client)  // an IP literal, checked: nothing to resolve
        case .reach(let address):
            let key = host + " " + address
            let (found, retired) = pinned.withLock { pinned -> (HTTPClient, [HTTPClient]) in
                if let client = pinned[key] { return (client, []) }
                var retired = [HTTPClient]()
                if pinned.count >= Self.maxPinnedClients {
                    retired = Array(pinned.values)
                    pinned.removeAll()
                }
                let client = HTTPClient(
                    eventLoopGroupProvider: .singleton, configuration: Self.configuration(pinning: host, to: address))
                pinned[key] = client
                return (client, retired)
            }
            for client in retired { Task { try? await client.shutdown() } }
            return .through(found)
        }
    }

    public func post(url: String, headers: [(String, String)], body: String, timeout: Duration) async -> WebhookAttemptResult {
        let client: HTTPClient
        switch await route(url) {
        case .through(let chosen): client = chosen
        case .refused(let reason): return .failed(reason)
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = HTTPHeaders(headers)
        request.body = .bytes(ByteBuffer(string: body))
        let deadline = NIODeadline.now() + TimeAmount(timeout)
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
    public static func describe(_ error: any Error) -> String {
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

    public func shutdown() async {
        try? await client.shutdown()
        for client in pinned.withLock({ pinned in
            defer { pinned.removeAll() }
            return Array(pinned.values)
        }) {
            try? await client.shutdown()
        }
    }
}
