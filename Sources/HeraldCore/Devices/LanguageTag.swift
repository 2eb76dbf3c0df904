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
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength,
            text.utf8.allSatisfy({ $0 < 0x80 })
        else { return nil }
        let subtags = String(text).split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
            .map(String.init)
        guard let normalized = Self.normalize(subtags) else { return nil }
        self.value = normalized.joined(separator: "-")
    }

    /// The primary language subtag, e.g. `zh` for `zh-Hant-HK`.
    public var language: String {
        String(value.prefix { $0 != "-" })
    }

    private enum Position: Int, Comparable {
        case extlang, script, region, variant, extensions
        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    private static func normalize(_ subtags: [String]) -> [String]? {
        guard let first = subtags.first, first.count >= 2, first.count <= 8, first.count != 4,
            first.allSatisfy(\.isLetter)
        else { return nil }
        var out = [first.lowercased()]
        var position = Position.extlang
        var extlangCount = 0
        var index = 1
        while index < subtags.count {
            let subtag = subtags[index]
            guard !subtag.isEmpty, subtag.count <= 8, subtag.allSatisfy({ $0.isLetter || $0.isNumber })
            else { return nil }
            if subtag.count == 1 {
                // Extensions and private use run to the end; each singleton needs subtags after it.
                return normalizeExtensions(Array(subtags[index...])).map { out + $0 }
            }
            if position <= .extlang, first.count <= 3, subtag.count == 3, subtag.allSatisfy(\.isLetter),
                extlangCount < 3
            {
                out.append(subtag.lowercased())
                extlangCount += 1
            } else if position <= .script, subtag.count == 4, subtag.allSatisfy(\.isLetter) {
                out.append(subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased())
                position = .region
            } else if position <= .region,
                (subtag.count == 2 && subtag.allSatisfy(\.isLetter))
                    || (subtag.count == 3 && subtag.allSatisfy(\.isNumber))
            {
                out.append(subtag.uppercased())
                position = .variant
            } else if (subtag.count >= 5) || (subtag.count == 4 && subtag.first!.isNumber) {
                out.append(subtag.lowercased())
                position = .variant
            } else {
                return nil
            }
            index += 1
        }
        return out
    }

    private static func normalizeExtensions(_ subtags: [String]) -> [String]? {
        var out = [String]()
        var index = 0
        while index < subtags.count {
            let singleton = subtags[index].lowercased()
            guard singleton.count == 1 else { return nil }
            let isPrivateUse = singleton == "x"
            let minimum = isPrivateUse ? 1 : 2
            var body = [String]()
            index += 1
            while index < subtags.count, subtags[index].count > 1 || (isPrivateUse && !subtags[index].isEmpty) {
                guard subtags[index].count >= minimum else { return nil }
                body.append(subtags[index].lowercased())
                index += 1
            }
            guard !body.isEmpty else { return nil }
            out.append(singleton)
            out.append(contentsOf: body)
            if isPrivateUse { return index == subtags.count ? out : nil }
        }
        return out
    }
}
