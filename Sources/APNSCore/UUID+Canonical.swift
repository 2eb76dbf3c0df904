import Foundation

extension UUID {
    /// The canonical lowercase form, `8-4-4-4-12` hex digits: what APNs expects in `apns-id`
    /// (docs/apns.md "Requests"). Foundation's `uuidString` is uppercase.
    public var canonicalString: String {
        String(unsafeUninitializedCapacity: 36) { writeCanonical(into: UnsafeMutableRawBufferPointer($0)) }
    }

    /// Writes ``canonicalString`` into `out` (at least 36 bytes) and returns 36: a request's
    /// literal `apns-id` is written this way straight into its frame.
    public func writeCanonical(into out: UnsafeMutableRawBufferPointer) -> Int {
        let digits: StaticString = "0123456789abcdef"
        return Swift.withUnsafeBytes(of: uuid) { raw in
            var position = 0
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                out[position] = digits.utf8Start[Int(byte >> 4)]
                out[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }

    /// Parses only the canonical lowercase form; uppercase or braces are refused, because
    /// APNs refuses them (400 BadMessageId).
    public init?(canonicalString string: some StringProtocol) {
        self.init(hyphenatedHex: string, allowUppercase: false)
    }

    /// Parses `8-4-4-4-12` hex digits in either case without Foundation's `sscanf`-based
    /// parser: every APNs answer carries an apns-id, so this is on the hot path, and a string
    /// that holds its bytes together (every native one) is read in place.
    public init?(hyphenatedHex string: some StringProtocol, allowUppercase: Bool = true) {
        let utf8 = string.utf8
        guard
            let bytes = utf8.withContiguousStorageIfAvailable({ Self.parseHyphenatedHex($0, allowUppercase: allowUppercase) })
                ?? Self.parseHyphenatedHex(utf8, allowUppercase: allowUppercase)
        else { return nil }
        self.init(uuid: bytes)
    }

    private static func parseHyphenatedHex(_ text: some Collection<UInt8>, allowUppercase: Bool) -> uuid_t? {
        guard text.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = Swift.withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var count = 0
            var position = 0
            var high: UInt8?
            for byte in text {
                defer { position += 1 }
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                    continue
                }
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte &- UInt8(ascii: "a") &+ 10
                case UInt8(ascii: "A")...UInt8(ascii: "F") where allowUppercase: nibble = byte &- UInt8(ascii: "A") &+ 10
                default: return false
                }
                if let first = high {
                    out[count] = first << 4 | nibble
                    count += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return count == 16
        }
        return parsed ? bytes : nil
    }
}
