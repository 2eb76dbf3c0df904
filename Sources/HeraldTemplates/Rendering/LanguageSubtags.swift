import HeraldCore

/// The parts of a language tag that negotiation compares: the language (aliases resolved), the
/// script (written, or inferred from language and region) and the region.
struct LanguageSubtags: Sendable, Equatable {
    var language: String
    /// Explicit or inferred; nil for a language the tables do not know and the tag does not say.
    var script: String?
    var region: String?
    /// The locale of another language this one falls back to, per CLDR (`nb` → `no`), read once
    /// here rather than at each comparison; empty for most languages (an array only so that the
    /// value can hold one of its own type).
    var parentLanguage: [LanguageSubtags] = []

    init(_ tag: LanguageTag) {
        self.init(tag, withParent: true)
    }

    private init(_ tag: LanguageTag, withParent: Bool) {
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
        let written = script ?? Self.likelyScript(language: language, region: region)
        self.script = written
        // CLDR's parents across languages are one step (nb → no, ht → fr-HT); their own are not read.
        if withParent, let parent = Self.parentLanguageTag(language: language, script: written).flatMap({ LanguageTag($0) }) {
            parentLanguage = [LanguageSubtags(parent, withParent: false)]
        }
    }

    /// How well a `candidate` serves someone who reads `self`: lower is better, nil when it does
    /// not serve at all (another language, or another script: `sr-Latn` is not `sr`).
    ///
    /// 0 the same region; 1… a regional parent (`es-MX` → `es-419`, `en-AU` → `en-001` →
    /// `en-GB`); 10 no region; 20 a region sharing a parent (`es-MX` and `es-AR`); 21 the
    /// language's most likely region; 22 a region other regions fall back to (`en-GB`, `pt-PT`,
    /// `es-419`); 23 any other region; from 30 on, the same ranks for the language CLDR says
    /// this one falls back to (`nb` reads `no`).
    func rank(of candidate: LanguageSubtags) -> Int? {
        if let rank = sameLanguageRank(of: candidate) { return rank }
        guard candidate.language != language, let parent = parentLanguage.first else { return nil }
        return parent.sameLanguageRank(of: candidate).map { Self.parentLanguageFirstRank + $0 }
    }

    static let noRegionRank = 10
    /// Ranks from here on are another region of the same language and script.
    static let otherRegionFirstRank = 20
    /// Ranks from here on are the parent language's.
    static let parentLanguageFirstRank = 30

    private func sameLanguageRank(of candidate: LanguageSubtags) -> Int? {
        guard candidate.language == language, candidate.script == script else { return nil }
        guard let candidateRegion = candidate.region else { return Self.noRegionRank }
        guard let region else { return otherRegionRank(candidateRegion) }
        var found: Int?
        forEachFallback(from: region) { stepRegion, step in
            if stepRegion == candidateRegion { found = step }
            return found != nil
        }
        if let found { return found }
        if sharesParent(region, candidateRegion) { return 20 }
        return otherRegionRank(candidateRegion)
    }

    private func otherRegionRank(_ candidateRegion: String) -> Int {
        if candidateRegion == Self.likelyRegion(language: language, script: script) { return 21 }
        if Self.isFallbackRegion(candidateRegion, language: language) { return 22 }
        return 23
    }

    /// Visits `region` and the regions it falls back to, nearest first, with their step, until
    /// `visit` returns true: CLDR's parent locales, then the stand-in of a world region
    /// (`en-001` → `en-GB`), which ends the chain.
    private func forEachFallback(from region: String, _ visit: (String, Int) -> Bool) {
        var current = region
        var step = 0
        while !visit(current, step) {
            step += 1
            if let parent = Self.parentRegion(language: language, script: script, region: current) {
                current = parent
            } else if let standIn = Self.macroRegionStandIns[language], standIn.macroRegion == current, standIn.region != region {
                _ = visit(standIn.region, step)
                return
            } else {
                return
            }
        }
    }

    /// True when the two regions' chains (each region and its parents) meet: `MX` and `AR`
    /// both fall back to `419`, and `419` is in `MX`'s chain.
    private func sharesParent(_ first: String, _ second: String) -> Bool {
        var meets = false
        forEachFallback(from: first) { left, _ in
            forEachFallback(from: second) { right, _ in
                meets = left == right
                return meets
            }
            return meets
        }
        return meets
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
