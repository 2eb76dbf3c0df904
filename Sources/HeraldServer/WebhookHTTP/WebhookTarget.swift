import Foundation
import Synchronization

/// Where a webhook URL's requests go: the origin a connection is kept for, and the request's
/// target on it. Parsed once per URL (`WebhookTargets`), not once per message.
struct WebhookTarget: Hashable, Sendable {
    var origin: WebhookOrigin
    /// The path and query as written in the URL: `/hooks?team=1`.
    var requestTarget: String

    /// Nil for a URL that cannot be used: not http(s), or without a host.
    init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        let secure = scheme == "https"
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        origin = WebhookOrigin(secure: secure, host: bare, port: components.port ?? (secure ? 443 : 80), address: nil)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}

/// An endpoint's scheme, host and port, and the address to connect to when one was checked
/// (`WebhookAddressGuard`): connections to it are kept and reused.
struct WebhookOrigin: Hashable, Sendable {
    var secure: Bool
    /// The host as named in the URL, without an IPv6 literal's brackets.
    var host: String
    var port: Int
    /// The checked address the connection goes to; nil: resolve `host`.
    var address: String?

    var isAddressLiteral: Bool { host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." } }

    /// The `Host` header: the name (an IPv6 literal in brackets), with the port unless it is
    /// the scheme's.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The name TLS checks the certificate against (and sends as SNI); nil for an address literal.
    var serverName: String? { isAddressLiteral ? nil : host }
}

/// Parsed URLs, kept: every message of an endpoint has the same one.
final class WebhookTargets: Sendable {
    private let parsed = Mutex<[String: WebhookTarget?]>([:])

    func target(_ url: String) -> WebhookTarget? {
        if let known = parsed.withLock({ $0[url] }) { return known }
        let target = WebhookTarget(url: url)
        parsed.withLock { parsed in
            if parsed.count >= 1_000 { parsed.removeAll() }
            parsed[url] = target
        }
        return target
    }
}
