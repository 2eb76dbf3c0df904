import Foundation
import HeraldCore

/// Gathers one template folder's strings files into language → key → value, remembering where
/// each language came from (for problem locations) and every problem on the way.
struct StringsCollector {
    /// Normalized language tag → key → value.
    private(set) var strings: [String: [String: String]] = [:]
    /// Normalized language tag → key → substitution name → plural category → form.
    private(set) var plurals: [String: [String: [String: [String: String]]]] = [:]
    private(set) var origins: [String: StringsOrigin] = [:]
    /// Languages whose file could not be read.
    private(set) var unreadable: Set<String> = []
    private(set) var problems: [TemplateProblem] = []

    /// Reads a `.strings` file for the language its name gives; `namedBy` is the file or
    /// folder whose name carries the language.
    mutating func readStringsFile(at url: URL, file: String, language: String, namedBy: String) {
        guard let tag = Self.languageTag(fileName: language) else {
            problems.append(
                TemplateProblem(
                    file: namedBy,
                    message: "\"\(language)\" is not a language tag: name strings files like en.strings, pt-BR.strings or zh-Hans.lproj"
                )
            )
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            problems.append(TemplateProblem(file: file, message: "missing or unreadable strings file"))
            unreadable.insert(tag.value)
            return
        }
        let entries: [StringsFileParser.Entry]
        do throws(StringsFileError) {
            let text = try StringsFileParser.decodeText(data)
            entries = try StringsFileParser.entries(in: text)
        } catch {
            problems.append(TemplateProblem(file: file, line: error.line, message: error.message))
            unreadable.insert(tag.value)
            return
        }
        var table = [String: String](minimumCapacity: entries.count)
        var lines = [String: Int](minimumCapacity: entries.count)
        for entry in entries {
            table[entry.key] = entry.value
            lines[entry.key] = entry.line
        }
        add(tag, table, origin: StringsOrigin(file: file, lines: lines))
    }

    /// Reads every language of a String Catalog.
    mutating func readCatalog(at url: URL, file: String) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            problems.append(TemplateProblem(file: file, message: "unreadable string catalog"))
            return
        }
        let catalog: StringCatalog
        do throws(StringCatalogError) {
            catalog = try StringCatalogParser.parse(data)
        } catch {
            problems.append(TemplateProblem(file: file, line: error.line, message: error.message))
            return
        }
        for language in catalog.strings.keys.sorted() {
            guard let tag = LanguageTag(language) else {
                problems.append(TemplateProblem(file: file, message: "language \"\(language)\" is not a BCP 47 language tag"))
                continue
            }
            add(tag, catalog.strings[language] ?? [:], origin: StringsOrigin(file: file, lines: [:]))
            if let forms = catalog.plurals[language], origins[tag.value]?.file == file { plurals[tag.value] = forms }
        }
    }

    /// Reads a `.stringsdict` for the language its name gives. Its keys join the language's
    /// `.strings` file, and win over the same keys there, as on Apple platforms.
    mutating func readStringsDict(at url: URL, file: String, language: String, namedBy: String) {
        guard let tag = Self.languageTag(fileName: language) else {
            problems.append(
                TemplateProblem(
                    file: namedBy,
                    message: "\"\(language)\" is not a language tag: name stringsdict files like en.stringsdict or ru.lproj"))
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            problems.append(TemplateProblem(file: file, message: "missing or unreadable stringsdict file"))
            unreadable.insert(tag.value)
            return
        }
        let entries: [String: StringsDictParser.Entry]
        do throws(StringsDictError) {
            entries = try StringsDictParser.parse(data)
        } catch {
            let field = error.key.map { "strings.\(tag).\($0)" }
            problems.append(TemplateProblem(file: file, line: error.line, field: field, message: error.message))
            unreadable.insert(tag.value)
            return
        }
        var origin = origins[tag.value] ?? StringsOrigin(file: file, lines: [:])
        if let existing = origins[tag.value], existing.file.hasSuffix(".xcstrings") {
            problems.append(TemplateProblem(file: file, message: "strings for \(tag) are already in \(existing.file)"))
            return
        }
        for (key, entry) in entries {
            strings[tag.value, default: [:]][key] = entry.format
            if entry.substitutions.isEmpty {
                plurals[tag.value]?[key] = nil
            } else {
                plurals[tag.value, default: [:]][key] = entry.substitutions
            }
            origin.lines[key] = entry.line > 0 ? entry.line : nil
            if origin.file != file { origin.files[key] = file }
        }
        if strings[tag.value] == nil { strings[tag.value] = [:] }
        origins[tag.value] = origin
    }

    private mutating func add(_ tag: LanguageTag, _ table: [String: String], origin: StringsOrigin) {
        if var existing = origins[tag.value] {
            // A .stringsdict read first: this .strings file holds the language's other keys.
            guard existing.file.hasSuffix(".stringsdict"), !origin.file.hasSuffix(".xcstrings") else {
                problems.append(TemplateProblem(file: origin.file, message: "strings for \(tag) are already in \(existing.file)"))
                return
            }
            for (key, value) in table where strings[tag.value]?[key] == nil {
                strings[tag.value, default: [:]][key] = value
                existing.lines[key] = origin.lines[key]
                existing.files[key] = origin.file
            }
            origins[tag.value] = existing
            return
        }
        strings[tag.value] = table
        origins[tag.value] = origin
    }

    /// A file name's language: a BCP 47 tag whose language subtag has 2 or 3 letters, which
    /// keeps names like `Localizable` or `english` (syntactically tags) from passing.
    static func languageTag(fileName: String) -> LanguageTag? {
        guard let tag = LanguageTag(fileName), (2...3).contains(tag.language.count) else { return nil }
        return tag
    }
}
