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
        return ContiguousArray(text).withUnsafeBufferPointer { parseHyphenatedHex($0, allowUppercase: allowUppercase) }
    }

    /// The bytes' hex pairs start at fixed places, between hyphens at 8, 13, 18 and 23.
    private static func parseHyphenatedHex(_ text: UnsafeBufferPointer<UInt8>, allowUppercase: Bool) -> uuid_t? {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
            text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-")
        else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // A byte outside a hex digit's range sets bit 4 of its nibble: OR-ed together, any one
        // of them spoils the whole.
        var spoiled: UInt8 = 0
        Swift.withUnsafeMutableBytes(of: &bytes) { out in
            for (index, place) in pairPlaces.enumerated() {
                let high = nibble(text[place], allowUppercase: allowUppercase)
                let low = nibble(text[place + 1], allowUppercase: allowUppercase)
                spoiled |= high | low
                out[index] = high << 4 | low & 0x0F
            }
        }
        return spoiled & 0x10 == 0 ? bytes : nil
    }

    private static let pairPlaces = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

    /// A hex digit's value, or 0x10 for any other byte.
    @inline(__always)
    private static func nibble(_ byte: UInt8, allowUppercase: Bool) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where allowUppercase: byte &- UInt8(ascii: "A") &+ 10
        default: 0x10
        }
    }
}
