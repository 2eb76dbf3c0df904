import APNSCore
import HeraldCore

/// Where one language's strings came from, so a problem names a file and a line.
struct StringsOrigin: Sendable, Equatable {
    /// Relative to the templates directory: `welcome/de.strings`.
    var file: String
    /// strings key → the line it is defined on (empty for catalogs, which have no lines).
    var lines: [String: Int]
    /// strings key → the file it came from, where that is not ``file`` (a language's
    /// `.stringsdict` beside its `.strings`).
    var files: [String: String] = [:]
}

/// Checks a whole document and collects every problem, so an author fixes them in one pass.
struct TemplateValidator {
    let document: TemplateDocument
    /// The file document-level problems name: `welcome/template.json`, or "template".
    let file: String
    /// `document.strings` key → where those strings were read from; none for API documents.
    let origins: [String: StringsOrigin]
    /// Normalized tags of languages whose strings could not be read (already reported), so
    /// their absence is not reported again.
    let unreadable: Set<String>

    private var problems: [TemplateProblem] = []
    /// Per part, the conversions each 0-based argument index is shown with in some language
    /// (plural selection counted as `%d`), and the first language showing it so.
    var shownAs: [PartName: [Int: (conversion: FormatString.Conversion, language: String)]] = [:]

    init(document: TemplateDocument, file: String, origins: [String: StringsOrigin] = [:], unreadable: Set<String> = []) {
        self.document = document
        self.file = file
        self.origins = origins
        self.unreadable = unreadable
    }

    mutating func run() -> [TemplateProblem] {
        problems = []
        if !TemplateDocument.isValidName(document.name) {
            report(
                field: "name",
                "name \"\(document.name)\" must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit"
            )
        }
        let defaultTag = LanguageTag(document.defaultLanguage)
        if defaultTag == nil {
            report(field: "defaultLanguage", "defaultLanguage \"\(document.defaultLanguage)\" is not a BCP 47 language tag")
        }
        checkParts()
        checkPayload()
        let languages = checkLanguages()
        if let defaultTag {
            checkStrings(languages: languages, defaultTag: defaultTag)
        }
        checkPluralLanguages(languages: languages)
        checkArgumentTypes()
        return problems
    }

    // MARK: - Parts and arguments

    /// A background template (payload.pushType background) carries no text: its `aps` holds
    /// only content-available, and its data goes in `payload.custom`.
    private var isBackground: Bool { document.payload.pushType == PushType.background.rawValue }

    private mutating func checkParts() {
        if isBackground {
            for (name, _) in document.parts {
                report(
                    field: name.rawValue,
                    "a background push cannot carry a \(name.rawValue) (its aps holds only content-available; put data in payload.custom)")
            }
        } else if document.title == nil, document.body == nil {
            report(field: "body", "a template needs a body or a title")
        }
        for (name, part) in document.parts {
            if part.key.isEmpty {
                report(field: "\(name.rawValue).key", "\(name.rawValue).key must not be empty")
            }
            for (index, argument) in part.arguments.enumerated() {
                do throws(ArgumentExpressionError) {
                    _ = try ArgumentExpression(parsing: argument)
                } catch {
                    let field = "\(name.rawValue).arguments[\(index)]"
                    report(field: field, "\(field): \(error.message)")
                }
            }
        }
    }

    // MARK: - Payload defaults

    private mutating func checkPayload() {
        let payload = document.payload
        if let pushType = payload.pushType {
            if let type = PushType(rawValue: pushType) {
                if type == .background {
                    let alertOnly: [(String, Bool)] = [
                        ("sound", payload.sound != nil), ("criticalSound", payload.criticalSound != nil),
                        ("badge", payload.badge != nil), ("category", payload.category != nil),
                        ("threadID", payload.threadID != nil), ("interruptionLevel", payload.interruptionLevel != nil),
                        ("relevanceScore", payload.relevanceScore != nil), ("mutableContent", payload.mutableContent != nil),
                    ]
                    for (field, set) in alertOnly where set {
                        report(field: "payload.\(field)", "a background push carries no \(field) (its aps holds only content-available)")
                    }
                }
            } else {
                let known = PushType.allCases.map(\.rawValue).joined(separator: ", ")
                report(field: "payload.pushType", "unknown push type \"\(pushType)\" (expected one of \(known))")
            }
        }
        if let level = payload.interruptionLevel, Payload.InterruptionLevel(rawValue: level) == nil {
            let known = Payload.InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", ")
            report(field: "payload.interruptionLevel", "unknown interruption level \"\(level)\" (expected one of \(known))")
        }
        if let score = payload.relevanceScore, !(0.0...1.0).contains(score) {
            report(field: "payload.relevanceScore", "payload.relevanceScore must be within 0...1")
        }
        if let sound = payload.sound, sound.isEmpty {
            report(field: "payload.sound", "payload.sound must not be empty (\"default\" is the system sound)")
        }
        if let critical = payload.criticalSound {
            if critical.name.isEmpty {
                report(field: "payload.criticalSound.name", "payload.criticalSound.name must not be empty")
            }
            if !(0.0...1.0).contains(critical.volume) {
                report(field: "payload.criticalSound.volume", "payload.criticalSound.volume must be within 0...1")
            }
        }
        if let badge = payload.badge, badge < 0 {
            report(field: "payload.badge", "payload.badge must be 0 or more")
        }
        if let custom = payload.custom {
            if custom["aps"] != nil {
                report(field: "payload.custom.aps", "payload.custom must not have a key named aps: custom keys go beside aps")
            }
            if !custom.values.allSatisfy(\.isFinite) {
                report(field: "payload.custom", "payload.custom holds NaN or infinity, which JSON cannot express")
            }
        }
    }

    // MARK: - Languages and strings

    /// The document's languages with their tags, sorted by tag; bad and repeated tags reported.
    private mutating func checkLanguages() -> [(key: String, tag: LanguageTag)] {
        var languages = [(key: String, tag: LanguageTag)]()
        var seen = [LanguageTag: String]()
        for key in document.strings.keys.sorted() {
            guard let tag = LanguageTag(key) else {
                report(language: key, field: "strings.\(key)", "\"\(key)\" is not a BCP 47 language tag")
                continue
            }
            if let other = seen[tag] {
                report(language: key, field: "strings.\(key)", "languages \"\(other)\" and \"\(key)\" are the same tag \(tag)")
                continue
            }
            seen[tag] = key
            languages.append((key: key, tag: tag))
        }
        return languages.sorted { $0.tag.value < $1.tag.value }
    }

    private mutating func checkStrings(languages: [(key: String, tag: LanguageTag)], defaultTag: LanguageTag) {
        let defaultKey = languages.first { $0.tag == defaultTag }?.key
        if defaultKey == nil, !unreadable.contains(defaultTag.value), !isBackground {
            report(field: "strings.\(document.defaultLanguage)", "no strings for the default language \(defaultTag)")
        }
        let parts = document.parts.filter { !$0.part.key.isEmpty }
        // The default language first: the others are compared with it.
        var defaultFormats = [PartName: FormatString]()
        if let defaultKey {
            for (name, part) in parts {
                defaultFormats[name] = format(of: part, named: name, languageKey: defaultKey, tag: defaultTag)
            }
        }
        for (key, tag) in languages where key != defaultKey {
            for (name, part) in parts {
                guard let compiled = format(of: part, named: name, languageKey: key, tag: tag),
                    let reference = defaultFormats[name]
                else { continue }
                compare(compiled, with: reference, key: part.key, languageKey: key, tag: tag, defaultTag: defaultTag)
            }
        }
    }

    /// The compiled string of one part in one language; reports a missing key, a malformed
    /// string and an argument number the part has no argument for.
    private mutating func format(
        of part: MessagePart, named name: PartName, languageKey: String, tag: LanguageTag
    )
        -> FormatString?
    {
        let field = "strings.\(languageKey).\(part.key)"
        guard let text = document.strings[languageKey]?[part.key] else {
            report(language: languageKey, field: field, "\(tag) has no string for \(part.key) (the \(name.rawValue))")
            return nil
        }
        if let scalar = TextRules.forbiddenCharacter(in: text) {
            report(language: languageKey, key: part.key, field: field, "\(part.key) \(TextRules.reason(scalar))")
            return nil
        }
        let compiled: FormatString
        do throws(FormatStringError) {
            compiled = try FormatString(parsing: text)
        } catch {
            report(language: languageKey, key: part.key, field: field, "\(part.key): \(error)")
            return nil
        }
        checkSubstitutions(of: compiled, part: part, named: name, languageKey: languageKey, tag: tag)
        let count = part.arguments.count
        if compiled.argumentCount > count {
            let has = count == 0 ? "no arguments" : count == 1 ? "only 1 argument" : "only \(count) arguments"
            report(
                language: languageKey, key: part.key, field: field,
                "\(part.key) uses argument \(compiled.argumentCount) but the \(name.rawValue) has \(has)"
            )
        }
        return compiled
    }

    /// Placeholders must agree with the default language: the same number of argument slots,
    /// and no position the default language does not use.
    private mutating func compare(
        _ format: FormatString, with reference: FormatString, key: String, languageKey: String, tag: LanguageTag,
        defaultTag: LanguageTag
    ) {
        let field = "strings.\(languageKey).\(key)"
        if format.argumentCount != reference.argumentCount {
            report(
                language: languageKey, key: key, field: field,
                "\(key) uses \(format.argumentCount) argument slot(s) in \(tag) but \(reference.argumentCount) in the default language \(defaultTag)"
            )
            return
        }
        let defaultPositions = Set(reference.usedPositions)
        for position in format.usedPositions where !defaultPositions.contains(position) {
            report(
                language: languageKey, key: key, field: field,
                "\(key) uses argument \(position) (%\(position)$@) in \(tag), which the default language \(defaultTag) does not use"
            )
        }
    }

    // MARK: - Reporting

    /// A problem of the document itself (template.json, or the API document).
    mutating func report(field: String, _ message: String) {
        problems.append(TemplateProblem(file: file, line: nil, field: field, message: message))
    }

    /// A problem in one language's strings, located in the file they came from when known.
    mutating func report(language: String, key: String? = nil, field: String, _ message: String) {
        guard let origin = origins[language] else {
            problems.append(TemplateProblem(file: file, line: nil, field: field, message: message))
            return
        }
        let line = key.flatMap { origin.lines[$0] }
        let file = key.flatMap { origin.files[$0] } ?? origin.file
        problems.append(TemplateProblem(file: file, line: line, field: field, message: message))
    }
}

extension TemplateDocument {
    /// Every problem that keeps this document from being used, in a stable order; empty when it
    /// is valid. Problems name `file` "template" and the offending `field`.
    public func validate() -> [TemplateProblem] {
        var validator = TemplateValidator(document: self, file: "template")
        return validator.run()
    }

    /// A template name: lowercase `[a-z0-9][a-z0-9_-]{0,63}`.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        for (index, byte) in bytes.enumerated() {
            let letterOrDigit =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            if letterOrDigit { continue }
            if index > 0, byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") { continue }
            return false
        }
        return true
    }
}
