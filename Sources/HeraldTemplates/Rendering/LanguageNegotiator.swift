import HeraldCore

/// Picks the language a device gets, the way Apple platforms pick a bundle localization
/// (docs/rules.md rule 7): for each of the user's preferred languages in order, an exact match;
/// else the same language in the same script (inferred where the tag does not say: `zh-TW` is
/// `zh-Hant`, `zh-CN` is `zh-Hans`, `sr-Latn` is not `sr`), preferring the same region, then its
/// regional parents (`es-MX` → `es-419`, `en-AU` → `en-GB`, `pt-AO` → `pt-PT`), then the bare
/// language, then another region (a `pt-PT` reader still gets `pt-BR`). Only when no preferred
/// language matches anything does the default language win.
///
/// Build one per template (the available tags are analysed once) and call ``choice(for:)`` per
/// device; tags compare case-insensitively and accept `_` because ``LanguageTag`` normalizes.
public struct LanguageNegotiator: Sendable {
    /// Why a language was chosen.
    public enum Reason: String, Sendable, Equatable {
        /// A preferred language is available as written.
        case exactMatch
        /// The same language and script in the same region, a parent region, or no region.
        case closeMatch
        /// The same language and script in another region.
        case otherRegion
        /// The language CLDR says the preferred one falls back to (`nb` reads `no`).
        case parentLanguage
        /// No preferred language matched.
        case defaultLanguage
    }

    /// The outcome of negotiation.
    public struct Choice: Sendable, Equatable {
        public var language: LanguageTag
        /// The position in ``LanguageNegotiator/available``; nil when the default language is
        /// chosen but is not among the available ones.
        public var index: Int?
        public var reason: Reason
        /// Which of the preferred languages matched; nil for the default language.
        public var preferredIndex: Int?
    }

    public let available: [LanguageTag]
    public let defaultLanguage: LanguageTag
    private let exactIndex: [LanguageTag: Int]
    private let subtags: [LanguageSubtags]
    private let defaultIndex: Int?

    /// Ties between equally good languages go to the earlier one in `available`.
    public init(available: [LanguageTag], defaultLanguage: LanguageTag) {
        self.available = available
        self.defaultLanguage = defaultLanguage
        var exactIndex = [LanguageTag: Int](minimumCapacity: available.count)
        for (index, tag) in available.enumerated() where exactIndex[tag] == nil {
            exactIndex[tag] = index
        }
        self.exactIndex = exactIndex
        self.subtags = available.map(LanguageSubtags.init)
        self.defaultIndex = exactIndex[defaultLanguage]
    }

    /// The language for someone who reads `preferred`, most preferred first.
    public static func choose(preferred: [LanguageTag], available: [LanguageTag], defaultLanguage: LanguageTag) -> LanguageTag {
        LanguageNegotiator(available: available, defaultLanguage: defaultLanguage).choice(for: preferred).language
    }

    /// The language for someone who reads `preferred`, with the reason.
    public func choice(for preferred: [LanguageTag]) -> Choice {
        for (position, tag) in preferred.enumerated() {
            if let index = exactIndex[tag] {
                return Choice(language: available[index], index: index, reason: .exactMatch, preferredIndex: position)
            }
            let wanted = LanguageSubtags(tag)
            var bestIndex = -1
            var bestRank = Int.max
            for (index, candidate) in subtags.enumerated() {
                if let rank = wanted.rank(of: candidate), rank < bestRank {
                    bestRank = rank
                    bestIndex = index
                }
            }
            if bestIndex >= 0 {
                let reason: Reason =
                    bestRank < LanguageSubtags.otherRegionFirstRank
                    ? .closeMatch : bestRank < LanguageSubtags.parentLanguageFirstRank ? .otherRegion : .parentLanguage
                return Choice(language: available[bestIndex], index: bestIndex, reason: reason, preferredIndex: position)
            }
        }
        return Choice(language: defaultLanguage, index: defaultIndex, reason: .defaultLanguage, preferredIndex: nil)
    }
}
