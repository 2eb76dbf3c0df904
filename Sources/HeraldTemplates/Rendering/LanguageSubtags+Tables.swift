/// Small explicit tables for negotiation, so the result is the same on every platform (Linux's
/// Foundation has no likely-subtags data). Drawn from CLDR's likely subtags and parent locales,
/// limited to what notification languages need.
extension LanguageSubtags {
    /// Deprecated codes that devices and apps still use.
    static let languageAliases: [String: String] = [
        "iw": "he", "in": "id", "ji": "yi", "tl": "fil", "mo": "ro", "no": "nb",
    ]

    /// The script a language is written in when the tag does not say; depends on the region
    /// for languages written in more than one.
    static func likelyScript(language: String, region: String?) -> String? {
        switch language {
        case "zh":
            return region == "TW" || region == "HK" || region == "MO" ? "Hant" : "Hans"
        case "yue":
            return region == "CN" ? "Hans" : "Hant"
        case "sr":
            return region == "ME" || region == "XK" ? "Latn" : "Cyrl"
        case "uz":
            return region == "AF" ? "Arab" : "Latn"
        case "az":
            return region == "IR" || region == "IQ" ? "Arab" : "Latn"
        case "pa":
            return region == "PK" ? "Arab" : "Guru"
        case "mn":
            return region == "CN" ? "Mong" : "Cyrl"
        default:
            return defaultScripts[language]
        }
    }

    private static let defaultScripts: [String: String] = [
        // Latin
        "en": "Latn", "fr": "Latn", "de": "Latn", "es": "Latn", "pt": "Latn", "it": "Latn", "nl": "Latn",
        "sv": "Latn", "da": "Latn", "nb": "Latn", "nn": "Latn", "fi": "Latn", "is": "Latn", "pl": "Latn",
        "cs": "Latn", "sk": "Latn", "sl": "Latn", "hr": "Latn", "bs": "Latn", "hu": "Latn", "ro": "Latn",
        "tr": "Latn", "id": "Latn", "vi": "Latn", "ca": "Latn", "eu": "Latn", "gl": "Latn", "et": "Latn",
        "lv": "Latn", "lt": "Latn", "sq": "Latn", "ga": "Latn", "cy": "Latn", "mt": "Latn", "fil": "Latn",
        "sw": "Latn", "ms": "Latn", "af": "Latn", "zu": "Latn", "ha": "Latn", "yo": "Latn", "ig": "Latn", "so": "Latn",
        // Cyrillic
        "ru": "Cyrl", "uk": "Cyrl", "be": "Cyrl", "bg": "Cyrl", "mk": "Cyrl", "kk": "Cyrl", "ky": "Cyrl",
        "tg": "Cyrl",
        // Others
        "ar": "Arab", "fa": "Arab", "ur": "Arab", "ps": "Arab", "he": "Hebr", "yi": "Hebr", "el": "Grek",
        "ja": "Jpan", "ko": "Kore", "th": "Thai", "lo": "Laoo", "km": "Khmr", "my": "Mymr", "ka": "Geor",
        "hy": "Armn", "am": "Ethi", "hi": "Deva", "mr": "Deva", "ne": "Deva", "bn": "Beng", "ta": "Taml",
        "te": "Telu", "kn": "Knda", "ml": "Mlym", "gu": "Gujr", "si": "Sinh", "or": "Orya",
    ]

    /// The region a region falls back to before the bare language (CLDR parent locales):
    /// Latin American Spanish → `es-419`, Portuguese outside Brazil → `pt-PT`, English of the
    /// Commonwealth and Europe → `en-GB`, Macau Chinese → Hong Kong.
    static func parentRegion(language: String, region: String) -> String? {
        switch language {
        case "es": spanishAmericas.contains(region) ? "419" : nil
        case "pt": europeanPortuguese.contains(region) ? "PT" : nil
        case "en": britishEnglish.contains(region) ? "GB" : nil
        case "zh": region == "MO" ? "HK" : nil
        default: nil
        }
    }

    /// A region other regions fall back to: the best guess for a reader of another region.
    static func isFallbackRegion(_ region: String, language: String) -> Bool {
        switch language {
        case "es": region == "419"
        case "pt": region == "PT"
        case "en": region == "GB"
        case "zh": region == "HK"
        default: false
        }
    }

    /// The region most readers of a language (and script) live in.
    static func likelyRegion(language: String, script: String?) -> String? {
        switch language {
        case "zh": script == "Hant" ? "TW" : "CN"
        default: likelyRegions[language]
        }
    }

    private static let likelyRegions: [String: String] = [
        "en": "US", "es": "ES", "pt": "BR", "fr": "FR", "de": "DE", "it": "IT", "nl": "NL", "ja": "JP",
        "ko": "KR", "ru": "RU", "ar": "EG", "sv": "SE", "da": "DK", "nb": "NO", "fi": "FI", "pl": "PL",
        "tr": "TR", "sr": "RS", "uk": "UA", "el": "GR", "he": "IL", "hi": "IN", "id": "ID", "th": "TH",
        "vi": "VN", "ms": "MY", "cs": "CZ", "hu": "HU", "ro": "RO",
    ]

    private static let spanishAmericas: Set<String> = [
        "AR", "BO", "BR", "BZ", "CL", "CO", "CR", "CU", "DO", "EC", "GT", "HN", "MX", "NI", "PA", "PE", "PR",
        "PY", "SV", "US", "UY", "VE",
    ]

    private static let europeanPortuguese: Set<String> = [
        "AO", "CH", "CV", "FR", "GQ", "GW", "LU", "MO", "MZ", "ST", "TL",
    ]

    private static let britishEnglish: Set<String> = [
        "150", "AU", "BD", "BW", "CY", "FK", "GG", "GH", "GI", "HK", "IE", "IM", "IN", "JE", "KE", "LK",
        "MT", "MY", "NG", "NZ", "PK", "SG", "ZA", "ZM", "ZW",
    ]
}
