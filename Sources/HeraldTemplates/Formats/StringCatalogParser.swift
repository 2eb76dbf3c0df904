import Foundation

/// The strings of an Xcode String Catalog (`.xcstrings`), by language then key, with their
/// plural substitutions.
public struct StringCatalog: Sendable, Equatable {
    /// The catalog's `sourceLanguage`.
    public var sourceLanguage: String
    /// language → key → value.
    public var strings: [String: [String: String]]
    /// language → key → substitution name → plural category → form (as in
    /// ``TemplateDocument/plurals``).
    public var plurals: [String: [String: [String: [String: String]]]]

    public init(
        sourceLanguage: String, strings: [String: [String: String]], plurals: [String: [String: [String: [String: String]]]] = [:]
    ) {
        self.sourceLanguage = sourceLanguage
        self.strings = strings
        self.plurals = plurals
    }
}

/// Reads an app's String Catalog so a team can reuse the strings it already ships:
///
///     {"sourceLanguage": "en", "version": "1.0", "strings": {
///       "WELCOME": {"localizations": {"de": {"stringUnit": {"state": "translated", "value": "…"}}}}}}
///
/// - A `stringUnit`'s value is taken as is. A unit in state `new` or `needs_review` without a
///   value is left out. A key with no source-language value uses the key itself, as Xcode does.
/// - Plural variations of the whole string become the substitution `plural`, selected by the
///   number the forms show: `"%lld items"` for `other` gives the string `%#@plural@`.
/// - `substitutions` (`%#@items@` with `argNum`, `formatSpecifier` and plural variations) keep
///   their names; `%arg` in a form becomes the substitution's specifier (`%lld`), and each
///   `%#@name@` in the string is tied to its `argNum` (`%2$#@name@`).
/// - Device variations: a device record does not say which model it is, so Herald takes the
///   `other` variation (else `iphone`), which is what an app shows on a device the catalog does
///   not single out.
public enum StringCatalogParser {
    public static func parse(_ data: Data) throws(StringCatalogError) -> StringCatalog {
        let file: CatalogFile
        do {
            file = try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch {
            let described = JSONErrorDescription.describe(error)
            throw StringCatalogError(line: described.line, message: described.message)
        }
        var catalog = StringCatalog(sourceLanguage: file.sourceLanguage, strings: [:])
        for (key, entry) in file.strings {
            for (language, localization) in entry.localizations ?? [:] {
                if let (text, substitutions) = try value(of: localization, key: key, language: language) {
                    catalog.strings[language, default: [:]][key] = text
                    if !substitutions.isEmpty { catalog.plurals[language, default: [:]][key] = substitutions }
                }
            }
            if catalog.strings[file.sourceLanguage]?[key] == nil {
                catalog.strings[file.sourceLanguage, default: [:]][key] = key
            }
        }
        return catalog
    }

    private typealias Substitutions = [String: [String: String]]

    private static func value(
        of localization: CatalogFile.Localization, key: String, language: String
    )
        throws(StringCatalogError) -> (String, Substitutions)?
    {
        if let unit = localization.stringUnit {
            guard let text = text(of: unit) else { return nil }
            var substitutions = Substitutions()
            var positioned = text
            for (name, substitution) in localization.substitutions ?? [:] {
                let specifier = substitution.formatSpecifier ?? "lld"
                var forms = [String: String]()
                for (category, variation) in substitution.variations?.plural ?? [:] {
                    guard let form = variation.stringUnit.flatMap(text(of:)) else { continue }
                    forms[category] = form.replacingOccurrences(of: "%arg", with: "%" + specifier)
                }
                substitutions[name] = forms
                if let argument = substitution.argNum {
                    guard (1...FormatString.maximumPosition).contains(argument) else {
                        throw StringCatalogError(
                            line: nil, message: "\(key) (\(language)): substitution \(name) has argNum \(argument), not 1 to 99")
                    }
                    positioned = positioned.replacingOccurrences(of: "%#@\(name)@", with: "%\(argument)$#@\(name)@")
                }
            }
            return (positioned, substitutions)
        }
        guard let variations = localization.variations else { return nil }
        if let device = variations.device {
            guard let chosen = device["other"] ?? device["iphone"] ?? device.keys.sorted().first.flatMap({ device[$0] }) else {
                return nil
            }
            return try value(of: chosen, key: key, language: language)
        }
        guard let plural = variations.plural else { return nil }
        var forms = [String: String]()
        for (category, variation) in plural {
            if let form = variation.stringUnit.flatMap(text(of:)) { forms[category] = form }
        }
        guard !forms.isEmpty else { return nil }
        // The number the forms count is the one the `other` form shows.
        let position = forms["other"].flatMap { try? FormatString(parsing: $0) }?.usedPositions
        let token = position?.count == 1 && position != [1] ? "%\(position![0])$#@plural@" : "%#@plural@"
        return (token, ["plural": forms])
    }

    private static func text(of unit: CatalogFile.StringUnit) -> String? {
        guard let text = unit.value else { return nil }
        if text.isEmpty, unit.state == "new" || unit.state == "needs_review" { return nil }
        return text
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
        var substitutions: [String: Substitution]?
    }

    struct StringUnit: Decodable {
        var state: String?
        var value: String?
    }

    struct Variations: Decodable {
        var plural: [String: Localization]?
        var device: [String: Localization]?
    }

    struct Substitution: Decodable {
        var argNum: Int?
        var formatSpecifier: String?
        var variations: Variations?
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
