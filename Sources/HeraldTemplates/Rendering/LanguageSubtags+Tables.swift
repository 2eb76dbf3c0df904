import HeraldCore

/// The data files in `Assets/`, compiled in by the EmbedFiles build plugin.
enum EmbeddedAssets {}

/// CLDR's data as negotiation reads it (`Assets/cldr-*.txt`, written by
/// `ops/generate-language-subtags`; Linux's Foundation has no likely-subtags data, and explicit
/// tables give the same result on every platform), and Herald's one rule on top of it.
extension LanguageSubtags {
    /// The parsed tables, read once.
    struct Tables: Sendable {
        var aliases: [String: String] = [:]
        /// `language`, `language-REGION` or `language-Script` → likely script and region.
        var likely: [String: (script: String, region: String)] = [:]
        /// `language-REGION` or `language-Script-REGION` → the parent's region (same language).
        var parentRegions: [String: String] = [:]
        /// `language` or `language-Script` → a locale of another language it falls back to
        /// (`nb` → `no`, `ht` → `fr-HT`).
        var parentLanguages: [String: String] = [:]
        /// Per language, the regions other regions fall back to (`es` → `419`, `pt` → `PT`).
        var fallbackRegions: [String: Set<String>] = [:]

        init() {
            for line in Self.rows(EmbeddedAssets.cldrLanguageAliasesTXT) {
                let parts = line.split(separator: " ")
                aliases[String(parts[0])] = String(parts[1])
            }
            for line in Self.rows(EmbeddedAssets.cldrLikelySubtagsTXT) {
                let parts = line.split(separator: " ")
                likely[String(parts[0])] = (String(parts[1]), String(parts[2]))
            }
            for line in Self.rows(EmbeddedAssets.cldrParentLocalesTXT) {
                let parts = line.split(separator: " ")
                let (child, parent) = (parts[0].split(separator: "-"), parts[1].split(separator: "-"))
                guard child[0] == parent[0], child.count > 1, parent.count == child.count else {
                    if child[0] != parent[0] { parentLanguages[String(parts[0])] = String(parts[1]) }
                    continue
                }
                // Same language (and script, when the child names one): a regional parent.
                guard child.dropLast() == parent.dropLast() else { continue }
                parentRegions[String(parts[0])] = String(parent[parent.count - 1])
                fallbackRegions[String(child[0]), default: []].insert(String(parent[parent.count - 1]))
            }
            for (language, standIn) in LanguageSubtags.macroRegionStandIns {
                fallbackRegions[language, default: []].insert(standIn.region)
            }
        }

        /// A data file's lines, without its `#` header and blank lines.
        private static func rows(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
    }

    static let tables = Tables()

    /// Herald's rule on top of CLDR: English's world region (`en-001`, where CLDR sends
    /// `en-AU`, `en-IN`, `en-150`…) is stood in for by `en-GB` when a template has no `en-001`,
    /// as Apple platforms fall back to British English for those regions and as apps ship
    /// `en-GB` rather than `en-001`.
    static let macroRegionStandIns: [String: (macroRegion: String, region: String)] = ["en": ("001", "GB")]

    static var languageAliases: [String: String] { tables.aliases }

    /// The script a language is written in when the tag does not say; depends on the region
    /// for languages written in more than one (`zh-TW` is Hant, `sr-ME` is Latn).
    static func likelyScript(language: String, region: String?) -> String? {
        if let region, let pair = tables.likely[language + "-" + region] { return pair.script }
        return tables.likely[language]?.script
    }

    /// The region most readers of a language (and script) live in.
    static func likelyRegion(language: String, script: String?) -> String? {
        if let script, let pair = tables.likely[language + "-" + script] { return pair.region }
        return tables.likely[language]?.region
    }

    /// The region a region falls back to before the bare language (CLDR parent locales):
    /// Latin American Spanish → `es-419`, Portuguese outside Brazil → `pt-PT`, English of the
    /// Commonwealth → `en-001`, Macau Chinese (Traditional) → Hong Kong.
    static func parentRegion(language: String, script: String?, region: String) -> String? {
        if let script, let parent = tables.parentRegions[language + "-" + script + "-" + region] { return parent }
        return tables.parentRegions[language + "-" + region]
    }

    /// A region other regions fall back to: the best guess for a reader of another region.
    static func isFallbackRegion(_ region: String, language: String) -> Bool {
        tables.fallbackRegions[language]?.contains(region) ?? false
    }

    /// The locale of another language this one falls back to, per CLDR (`nb` → `no`).
    static func parentLanguageTag(language: String, script: String?) -> String? {
        if let script, let parent = tables.parentLanguages[language + "-" + script] { return parent }
        return tables.parentLanguages[language]
    }
}
