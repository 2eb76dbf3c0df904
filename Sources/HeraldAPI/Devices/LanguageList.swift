import APNSCore
import HeraldCore

/// A list of preferred languages in a request, most preferred first: valid BCP 47 tags, at
/// most ``DeviceRegistration/maximumLanguages``, repeats dropped.
enum LanguageList {
    static func tags<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> [LanguageTag] {
        let texts = try container.decodeIfPresent([String].self, forKey: key) ?? []
        let maximum = DeviceRegistration.maximumLanguages
        guard texts.count <= maximum else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "at most \(maximum) languages, got \(texts.count)")
        }
        var tags = [LanguageTag]()
        for (index, text) in texts.enumerated() {
            guard let tag = LanguageTag(text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [key, PayloadCodingKey(index: index)],
                        debugDescription: "not a BCP 47 language tag (e.g. en, pt-BR, zh-Hant-HK)"))
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }
}
