import Foundation

extension UUID {
    /// The canonical lowercase form, `8-4-4-4-12` hex digits: what APNs expects in `apns-id`
    /// (APNS.md "Request"). Foundation's `uuidString` is uppercase.
    public var canonicalString: String {
        let digits: StaticString = "0123456789abcdef"
        return Swift.withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
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
    }

    /// Parses only the canonical lowercase form; uppercase or braces are refused, because
    /// APNs refuses them (400 BadMessageId).
    public init?(canonicalString string: some StringProtocol) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 36 else { return nil }
        for (index, byte) in utf8.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return nil }
            default:
                let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                let isLowerHex = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")
                guard isDigit || isLowerHex else { return nil }
            }
        }
        self.init(uuidString: String(decoding: utf8, as: UTF8.self))
    }
}
