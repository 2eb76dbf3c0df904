/// A BCP 47 language tag (RFC 5646 syntax), normalized to the conventional case:
/// language lowercase, script titlecase, region uppercase (`zh-Hant-HK`, `pt-BR`, `es-419`).
/// `_` is accepted as a separator, as in Apple's locale identifiers.
public struct LanguageTag: Hashable, Sendable, CustomStringConvertible {
    /// The normalized tag.
    public let value: String

    public var description: String { value }

    /// Longest tag Herald stores; real-world tags are far shorter.
    public static let maximumLength = 64

    public init?(_ text: some StringProtocol) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        for byte in text.utf8 {
            guard byte < 0x80, bytes.count < Self.maximumLength else { return nil }
            bytes.append(byte)
        }
        guard !bytes.isEmpty, let normalized = Self.normalize(bytes) else { return nil }
        self.value = String(decoding: normalized, as: UTF8.self)
    }

    /// The primary language subtag, e.g. `zh` for `zh-Hant-HK`.
    public var language: String {
        String(value.prefix { $0 != "-" })
    }

    private enum Position: Int, Comparable {
        case extlang, script, region, variant, extensions
        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// The tag's subtags (split at `-` and `_`, empty ones kept so they are refused), checked and
    /// cased by their kind, joined with `-`. ASCII only: the caller has refused anything else.
    private static func normalize(_ bytes: [UInt8]) -> [UInt8]? {
        var subtags = [Range<Int>]()
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "_") {
            subtags.append(start..<index)
            start = index + 1
        }
        subtags.append(start..<bytes.count)
        let first = subtags[0]
        guard first.count >= 2, first.count <= 8, first.count != 4, bytes[first].allSatisfy(isLetter) else {
            return nil
        }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        out.append(contentsOf: bytes[first].lazy.map(lower))
        var position = Position.extlang
        var extlangCount = 0
        var index = 1
        while index < subtags.count {
            let subtag = bytes[subtags[index]]
            guard !subtag.isEmpty, subtag.count <= 8, subtag.allSatisfy({ isLetter($0) || isDigit($0) }) else {
                return nil
            }
            if subtag.count == 1 {
                // Extensions and private use run to the end; each singleton needs subtags after it.
                guard normalizeExtensions(subtags[index...].map { bytes[$0] }, into: &out) else { return nil }
                return out
            }
            out.append(UInt8(ascii: "-"))
            let letters = subtag.allSatisfy(isLetter)
            if position <= .extlang, first.count <= 3, subtag.count == 3, letters, extlangCount < 3 {
                out.append(contentsOf: subtag.lazy.map(lower))
                extlangCount += 1
            } else if position <= .script, subtag.count == 4, letters {
                out.append(upper(subtag[subtag.startIndex]))
                out.append(contentsOf: subtag.dropFirst().lazy.map(lower))
                position = .region
            } else if position <= .region, (subtag.count == 2 && letters) || (subtag.count == 3 && subtag.allSatisfy(isDigit)) {
                out.append(contentsOf: subtag.lazy.map(upper))
                position = .variant
            } else if subtag.count >= 5 || (subtag.count == 4 && isDigit(subtag[subtag.startIndex])) {
                out.append(contentsOf: subtag.lazy.map(lower))
                position = .variant
            } else {
                return nil
            }
            index += 1
        }
        return out
    }

    /// Appends `-singleton-subtag…` groups, lowercased; false when one is malformed.
    private static func normalizeExtensions(_ subtags: [ArraySlice<UInt8>], into out: inout [UInt8]) -> Bool {
        var index = 0
        while index < subtags.count {
            guard subtags[index].count == 1 else { return false }
            let singleton = lower(subtags[index][subtags[index].startIndex])
            let isPrivateUse = singleton == UInt8(ascii: "x")
            let minimum = isPrivateUse ? 1 : 2
            let bodyStart = index + 1
            index += 1
            while index < subtags.count, subtags[index].count > 1 || (isPrivateUse && !subtags[index].isEmpty) {
                guard subtags[index].count >= minimum, subtags[index].count <= 8,
                    subtags[index].allSatisfy({ isLetter($0) || isDigit($0) })
                else { return false }
                index += 1
            }
            guard index > bodyStart else { return false }
            out.append(UInt8(ascii: "-"))
            out.append(singleton)
            for body in subtags[bodyStart..<index] {
                out.append(UInt8(ascii: "-"))
                out.append(contentsOf: body.lazy.map(lower))
            }
            if isPrivateUse { return index == subtags.count }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func lower(_ byte: UInt8) -> UInt8 { isLetter(byte) ? byte | 0x20 : byte }
    private static func upper(_ byte: UInt8) -> UInt8 { isLetter(byte) ? byte & ~0x20 : byte }
}
