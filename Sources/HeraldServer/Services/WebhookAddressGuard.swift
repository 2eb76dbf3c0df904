import Foundation
import HeraldCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Resolves a webhook's host when it is about to be reached and refuses unless every address
/// it resolves to is public (`NetworkAddress`): a name that points at a loopback, private or
/// link-local address (now, or after a DNS change) is never connected to. The address checked
/// is the one connected to (`HTTPWebhookTransport` pins it), so a record that changes between
/// the check and the connection changes nothing. Answers are kept 30 seconds.
final class WebhookAddressGuard: Sendable {
    enum Verdict: Equatable, Sendable {
        /// Connect to this address.
        case reach(String)
        case refused(String)
    }

    public static let refusal =
        "refused: the host resolves to a loopback, private or link-local address (HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES allows it)"
    static let lifetime: TimeInterval = 30

    private let cache = Mutex<[String: (verdict: Verdict, at: Date)]>([:])
    /// Look-ups block a thread for as long as DNS takes: threads of their own, so a slow
    /// resolver never holds up password hashing or anything else on NIO's shared pool.
    private static let lookups: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    public func check(host: String) async -> Verdict {
        let now = Date()
        if let kept = cache.withLock({ $0[host] }), now.timeIntervalSince(kept.at) < Self.lifetime { return kept.verdict }
        let verdict: Verdict
        if NetworkAddress.isLocalName(host) {
            verdict = .refused(Self.refusal)
        } else if NetworkAddress.isReservedName(host) {
            verdict = .refused("the host name does not resolve (it is reserved for examples and tests)")
        } else if let isPublic = NetworkAddress.isPublic(host) {
            verdict = isPublic ? .reach(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) : .refused(Self.refusal)
        } else {
            let addresses = (try? await Self.lookups.runIfActive { Self.resolve(host) }) ?? []
            if addresses.isEmpty {
                verdict = .refused("the host name does not resolve")
            } else if let first = addresses.first, addresses.allSatisfy({ NetworkAddress.isPublic($0) == true }) {
                verdict = .reach(first)
            } else {
                verdict = .refused(Self.refusal)
            }
        }
        cache.withLock { cache in
            if cache.count > 1_000 { cache.removeAll() }
            cache[host] = (verdict, now)
        }
        return verdict
    }

    /// Every address `host` resolves to, as text.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses = [String]()
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if info.pointee.ai_family == AF_INET, let raw = info.pointee.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil {
                    addresses.append(Self.text(buffer))
                }
            } else if info.pointee.ai_family == AF_INET6, let raw = info.pointee.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                if inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil {
                    addresses.append(Self.text(buffer))
                }
            }
            next = info.pointee.ai_next
        }
        return addresses
    }

    /// The text `inet_ntop` wrote into `buffer`, up to its terminating NUL.
    public static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
