import Foundation

/// Which IP addresses a webhook may reach (docs/webhooks.md "Where messages may go"): only
/// public ones, unless `HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES` says otherwise. Loopback,
/// unspecified, private, shared (CGNAT), link-local (cloud metadata services live there),
/// multicast, documentation and reserved ranges are refused, in IPv4 and IPv6 (and IPv4 inside
/// IPv6: mapped, NAT64), so an admin key cannot turn Herald into a probe of its own network.
public enum NetworkAddress {
    /// Whether `text`, an IPv4 or IPv6 address (an IPv6 one with or without brackets), is a
    /// public address; nil when `text` is not an IP address at all (a host name).
    public static func isPublic(_ text: String) -> Bool? {
        var address = Substring(text)
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        if let zone = address.firstIndex(of: "%") { address = address[..<zone] }
        if let v4 = ipv4(address) { return isPublic(v4) }
        if let v6 = ipv6(address) { return isPublic(v6) }
        return nil
    }

    /// Host names that always mean this machine, whatever DNS says.
    public static func isLocalName(_ host: String) -> Bool {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        return name == "localhost" || name.hasSuffix(".localhost") || name == "localhost.localdomain"
    }

    /// Names reserved for documentation and tests (RFC 2606, RFC 6761): they name no real
    /// endpoint, so they are never looked up (the OpenAPI examples use them).
    public static func isReservedName(_ host: String) -> Bool {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        for suffix in ["example", "invalid", "test"] where name == suffix || name.hasSuffix("." + suffix) { return true }
        for domain in ["example.com", "example.net", "example.org"] where name == domain || name.hasSuffix("." + domain) {
            return true
        }
        return false
    }

    static func isPublic(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): return false  // this network, private, loopback
        case (100, 64...127): return false  // shared address space (CGNAT)
        case (169, 254): return false  // link-local, cloud metadata
        case (172, 16...31), (192, 168): return false  // private
        case (192, 0) where a[2] == 0 || a[2] == 2: return false  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return false  // TEST-NET-2, -3
        case (224...255, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    static func isPublic(_ a: [UInt16]) -> Bool {
        if a.allSatisfy({ $0 == 0 }) { return false }  // ::
        if a[0..<7].allSatisfy({ $0 == 0 }) && a[7] == 1 { return false }  // ::1
        if a[0..<5].allSatisfy({ $0 == 0 }) && a[5] == 0xFFFF { return isPublic(embedded(a)) }  // ::ffff:a.b.c.d
        if a[0] == 0x64 && a[1] == 0xFF9B && a[2..<6].allSatisfy({ $0 == 0 }) { return isPublic(embedded(a)) }  // NAT64
        if a[0..<6].allSatisfy({ $0 == 0 }) { return false }  // IPv4-compatible (deprecated)
        switch a[0] {
        case 0xFC00...0xFDFF: return false  // unique local
        case 0xFE80...0xFEBF: return false  // link-local
        case 0xFEC0...0xFEFF: return false  // site-local (deprecated)
        case 0xFF00...0xFFFF: return false  // multicast
        case 0x2001 where a[1] == 0x0DB8: return false  // documentation
        case 0x2002: return isPublic([UInt8(a[1] >> 8), UInt8(a[1] & 0xFF), UInt8(a[2] >> 8), UInt8(a[2] & 0xFF)])  // 6to4
        default: return true
        }
    }

    private static func embedded(_ a: [UInt16]) -> [UInt8] {
        [UInt8(a[6] >> 8), UInt8(a[6] & 0xFF), UInt8(a[7] >> 8), UInt8(a[7] & 0xFF)]
    }

    /// Dotted-quad IPv4, four decimal parts of 0-255 (no octal or hexadecimal forms).
    static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes = [UInt8]()
        for part in parts {
            // No leading zeros: "010" is octal to some parsers and decimal to others.
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.count == 1 || part.first != "0",
                let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// IPv6 in its text forms: eight groups, `::` for a run of zeros, an IPv4 tail.
    static func ipv6(_ text: Substring) -> [UInt16]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        var head = [UInt16]()
        var tail = [UInt16]()
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result = [UInt16]()
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4(piece) {
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let first = groups(halves[0]) else { return nil }
        head = first
        if halves.count == 2 {
            guard let second = groups(halves[1]), head.count + second.count <= 7 else { return nil }
            tail = second
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        return head.count == 8 ? head : nil
    }
}
