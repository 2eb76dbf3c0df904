/// An APNs device token: opaque bytes, written as hex at the edges.
///
/// docs/apns.md "Device tokens": tokens are variable length, so no size is assumed beyond
/// Herald's sanity bounds (4 to 100 bytes, i.e. 8 to 200 hex digits).
public struct DeviceToken: Hashable, Sendable {
    /// The fewest hex digits Herald accepts.
    public static let minimumHexLength = 8
    /// The most hex digits Herald accepts.
    public static let maximumHexLength = 200

    /// The raw token bytes.
    public let bytes: [UInt8]

    /// Creates a token from raw bytes, checking the length bounds.
    public init(bytes: [UInt8]) throws(DeviceTokenError) {
        let hexLength = bytes.count * 2
        guard hexLength >= Self.minimumHexLength else { throw .tooShort }
        guard hexLength <= Self.maximumHexLength else { throw .tooLong }
        self.bytes = bytes
    }

    /// Parses hex digits (either case). The error never repeats the input: it may be a real token.
    public init(hex: some StringProtocol) throws(DeviceTokenError) {
        let utf8 = Array(hex.utf8)
        guard !utf8.isEmpty else { throw .empty }
        guard utf8.count % 2 == 0 else { throw .oddLength }
        guard utf8.count >= Self.minimumHexLength else { throw .tooShort }
        guard utf8.count <= Self.maximumHexLength else { throw .tooLong }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else {
                throw .notHex
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// Lowercase hex, as APNs expects it in `:path`.
    public var hex: String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { writeHex(into: UnsafeMutableRawBufferPointer($0)) }
    }

    /// Writes ``hex`` into `out` (at least twice the token's length) and returns its length: a
    /// request's `:path` is written this way straight into its frame.
    public func writeHex(into out: UnsafeMutableRawBufferPointer) -> Int {
        let digits: StaticString = "0123456789abcdef"
        for (index, byte) in bytes.enumerated() {
            out[2 * index] = digits.utf8Start[Int(byte >> 4)]
            out[2 * index + 1] = digits.utf8Start[Int(byte & 0x0F)]
        }
        return 2 * bytes.count
    }

    /// The last 8 hex digits behind an ellipsis: the only form of a token that may be logged
    /// or returned (docs/rules.md rule 9).
    public var redacted: String {
        Self.redact(hex: hex)
    }

    /// Redacts any hex string the same way, for tokens that failed to parse.
    public static func redact(hex: some StringProtocol) -> String {
        "…" + String(hex.suffix(8)).lowercased()
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension DeviceToken: CustomStringConvertible {
    /// Redacted, so that string interpolation into a log line cannot leak a token.
    public var description: String { redacted }
}

/// Why a device token was refused. The messages never contain the token.
public enum DeviceTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case oddLength
    case notHex
    case tooShort
    case tooLong

    public var description: String {
        switch self {
        case .empty: "device token is empty"
        case .oddLength: "device token must have an even number of hex digits"
        case .notHex: "device token must contain only hex digits 0-9 and a-f"
        case .tooShort: "device token must have at least \(DeviceToken.minimumHexLength) hex digits"
        case .tooLong: "device token must have at most \(DeviceToken.maximumHexLength) hex digits"
        }
    }
}
