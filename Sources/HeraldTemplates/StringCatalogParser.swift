import Foundation

/// The strings of an Xcode String Catalog (`.xcstrings`), by language then key.
public struct StringCatalog: Sendable, Equatable {
    /// The catalog's `sourceLanguage`.
    public var sourceLanguage: String
    /// language → key → value.
    public var strings: [String: [String: String]]

    public init(sourceLanguage: String, strings: [String: [String: String]]) {
        self.sourceLanguage = sourceLanguage
        self.strings = strings
    }
}

/// Reads an app's String Catalog so a team can reuse the strings it already ships:
///
///     {"sourceLanguage": "en", "version": "1.0", "strings": {
///       "WELCOME": {"localizations": {"de": {"stringUnit": {"state": "translated", "value": "…"}}}}}}
///
/// A `stringUnit`'s value is taken as is; plural and device variations give their `other` form
/// (a notification cannot pick a plural form for its arguments). A unit in state `new` or
/// `needs_review` without a value is left out. A key with no source-language value uses the key
/// itself as that value, as Xcode does.
public enum StringCatalogParser {
    public static func parse(_ data: Data) throws(StringCatalogError) -> StringCatalog {
        let file: CatalogFile
        do {
            file = try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch {
            let described = JSONErrorDescription.describe(error)
            throw StringCatalogError(line: described.line, message: described.message)
        }
        var strings = [String: [String: String]]()
        for (key, entry) in file.strings {
            for (language, localization) in entry.localizations ?? [:] {
                if let text = value(of: localization) {
                    strings[language, default: [:]][key] = text
                }
            }
            if strings[file.sourceLanguage]?[key] == nil {
                strings[file.sourceLanguage, default: [:]][key] = key
            }
        }
        return StringCatalog(sourceLanguage: file.sourceLanguage, strings: strings)
    }

    private static func value(of localization: CatalogFile.Localization) -> String? {
        if let unit = localization.stringUnit {
            guard let text = unit.value else { return nil }
            if text.isEmpty, unit.state == "new" || unit.state == "needs_review" { return nil }
            return text
        }
        if let other = localization.variations?.plural?["other"] ?? localization.variations?.device?["other"] {
            return value(of: other)
        }
        return nil
    }
}

/// The parts of the `.xcstrings` format Herald reads; everything else is ignored.
private struct CatalogFile: Decodable {
    struct Entry: Decodable {
        var localizations: [String: Localization]?
    }

    struct Localization: Decodable {
        var stringUnit: StringUnit?
        var variations: Variations?
    }

    struct StringUnit: Decodable {
        var state: String?
        var value: String?
    }

    struct Variations: Decodable {
        var plural: [String: Localization]?
        var device: [String: Localization]?
    }

    var sourceLanguage: String
    var strings: [String: Entry]
}

/// Why a String Catalog cannot be read: a one-line message, with the line when the JSON itself
/// is malformed.
public struct StringCatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}
