import HeraldCore

/// The parts of a language tag that negotiation compares: the language (aliases resolved), the
/// script (written, or inferred from language and region) and the region.
struct LanguageSubtags: Sendable, Equatable {
    var language: String
    /// Explicit or inferred; nil for a language the tables do not know and the tag does not say.
    var script: String?
    var region: String?

    init(_ tag: LanguageTag) {
        var language = ""
        var script: String?
        var region: String?
        var sawExtlang = false
        var rest = Substring(tag.value)
        // LanguageTag has normalized case and separators, so each subtag's kind shows in its
        // length: language, extlang (3 letters), script (4 letters), region (2 letters or 3
        // digits). Variants and extensions do not change the match and end the scan.
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "-")) ?? rest.endIndex
            let subtag = rest[rest.startIndex..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            let count = subtag.utf8.count
            let letters = subtag.utf8.allSatisfy(Self.isLetter)
            if language.isEmpty {
                language = String(subtag)
            } else if count == 3, letters, !sawExtlang, script == nil, region == nil {
                // `zh-yue` is `yue`.
                language = String(subtag)
                sawExtlang = true
            } else if count == 4, letters, script == nil, region == nil {
                script = String(subtag)
            } else if region == nil, (count == 2 && letters) || (count == 3 && subtag.utf8.allSatisfy(Self.isDigit)) {
                region = String(subtag)
            } else {
                break
            }
        }
        language = Self.languageAliases[language] ?? language
        self.language = language
        self.region = region
        self.script = script ?? Self.likelyScript(language: language, region: region)
    }

    /// How well a `candidate` serves someone who reads `self`: lower is better, nil when it does
    /// not serve at all (another language, or another script: `sr-Latn` is not `sr`).
    ///
    /// 0 the same region; 1… a regional parent (`es-MX` → `es-419`); 10 no region; 20 a region
    /// sharing a parent (`es-MX` and `es-AR`); 21 the language's most likely region; 22 a
    /// region other regions fall back to (`en-GB`, `pt-PT`, `es-419`); 23 any other region.
    func rank(of candidate: LanguageSubtags) -> Int? {
        guard candidate.language == language, candidate.script == script else { return nil }
        guard let candidateRegion = candidate.region else { return Self.noRegionRank }
        guard let region else { return otherRegionRank(candidateRegion) }
        var step = 0
        var current: String? = region
        while let stepRegion = current {
            if stepRegion == candidateRegion { return step }
            current = Self.parentRegion(language: language, region: stepRegion)
            step += 1
        }
        if sharesParent(region, candidateRegion) { return 20 }
        return otherRegionRank(candidateRegion)
    }

    static let noRegionRank = 10
    /// Ranks from here on are another region of the same language and script.
    static let otherRegionFirstRank = 20

    private func otherRegionRank(_ candidateRegion: String) -> Int {
        if candidateRegion == Self.likelyRegion(language: language, script: script) { return 21 }
        if Self.isFallbackRegion(candidateRegion, language: language) { return 22 }
        return 23
    }

    /// True when the two regions' chains (each region and its parents) meet: `MX` and `AR`
    /// both fall back to `419`, and `419` is in `MX`'s chain.
    private func sharesParent(_ first: String, _ second: String) -> Bool {
        var left: String? = first
        while let region = left {
            var right: String? = second
            while let other = right {
                if other == region { return true }
                right = Self.parentRegion(language: language, region: other)
            }
            left = Self.parentRegion(language: language, region: region)
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
