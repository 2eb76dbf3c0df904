import APNSCore
import HeraldCore

/// A validated template ready to render: every language's parts compiled to format segments,
/// every argument to an expression, languages indexed once. Rendering (see
/// `CompiledTemplate+Rendering.swift`) looks nothing up by string key for the parts.
public struct CompiledTemplate: Sendable {
    /// One message part's key and compiled arguments.
    struct Part: Sendable {
        let key: String
        let arguments: [ArgumentExpression]

        /// The text of every argument, or nil when one has no value.
        func evaluate(in context: ArgumentContext) -> [String]? {
            if arguments.isEmpty { return [] }
            var values = [String]()
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                guard let value = argument.evaluate(in: context) else { return nil }
                values.append(value)
            }
            return values
        }

        /// The source of the first argument without a value (for the skip reason).
        func missingArgument(in context: ArgumentContext) -> String {
            arguments.first { $0.evaluate(in: context) == nil }?.source ?? key
        }
    }

    /// One language's compiled strings, present exactly where the part is, and how that
    /// language shows numbers and plurals.
    struct Localization: Sendable {
        let title: LocalizedString?
        let subtitle: LocalizedString?
        let body: LocalizedString?
        let formatting: TextFormatting
    }

    /// The document this was compiled from.
    public let document: TemplateDocument
    /// The available languages, sorted by tag; ties in negotiation go to the earlier one.
    public let languages: [LanguageTag]
    public let defaultLanguage: LanguageTag
    /// The template's payload defaults.
    public let payloadDefaults: PayloadOptions
    let defaultIndex: Int
    let localizations: [Localization]
    let title: Part?
    let subtitle: Part?
    let body: Part?
    let negotiator: LanguageNegotiator

    public var name: String { document.name }

    /// Compiles a document; throws every validation problem when it is not valid.
    public init(_ document: TemplateDocument) throws(TemplateLoadError) {
        let problems = document.validate()
        guard problems.isEmpty else { throw TemplateLoadError(problems: problems) }
        guard let defaultLanguage = LanguageTag(document.defaultLanguage) else {
            throw Self.internalError("defaultLanguage", "not a language tag")
        }
        var tables = [(tag: LanguageTag, key: String, strings: [String: String])]()
        for (key, strings) in document.strings {
            guard let tag = LanguageTag(key) else { throw Self.internalError("strings.\(key)", "not a language tag") }
            tables.append((tag: tag, key: key, strings: strings))
        }
        // A background template has no text, so it may come without strings at all.
        if document.parts.isEmpty, !tables.contains(where: { $0.tag == defaultLanguage }) {
            tables.append((tag: defaultLanguage, key: defaultLanguage.value, strings: [:]))
        }
        tables.sort { $0.tag.value < $1.tag.value }
        guard let defaultIndex = tables.firstIndex(where: { $0.tag == defaultLanguage }) else {
            throw Self.internalError("defaultLanguage", "no strings for the default language")
        }

        self.title = try Self.part(document.title, field: "title")
        self.subtitle = try Self.part(document.subtitle, field: "subtitle")
        self.body = try Self.part(document.body, field: "body")
        var localizations = [Localization]()
        localizations.reserveCapacity(tables.count)
        for table in tables {
            let plurals = document.plurals?[table.key] ?? [:]
            localizations.append(
                Localization(
                    title: try Self.string(document.title, in: table.strings, plurals: plurals, language: table.tag),
                    subtitle: try Self.string(document.subtitle, in: table.strings, plurals: plurals, language: table.tag),
                    body: try Self.string(document.body, in: table.strings, plurals: plurals, language: table.tag),
                    formatting: TextFormatting(language: table.tag)
                )
            )
        }
        let languages = tables.map(\.tag)
        self.document = document
        self.languages = languages
        self.defaultLanguage = defaultLanguage
        self.defaultIndex = defaultIndex
        self.localizations = localizations
        self.payloadDefaults = document.payload.options
        self.negotiator = LanguageNegotiator(available: languages, defaultLanguage: defaultLanguage)
    }

    /// The device attributes its arguments read (`attributes.NAME`, in any part and any
    /// fallback): all a campaign needs to fetch of a device's attributes to render it.
    public var attributeNames: Set<String> {
        var names = Set<String>()
        for part in [title, subtitle, body] {
            for argument in part?.arguments ?? [] {
                for case .attribute(let name) in argument.terms { names.insert(name) }
            }
        }
        return names
    }

    /// The language a device reading `preferred` gets.
    public func language(for preferred: [LanguageTag]) -> LanguageTag {
        languages[negotiator.choice(for: preferred).index ?? defaultIndex]
    }

    private static func part(_ part: MessagePart?, field: String) throws(TemplateLoadError) -> Part? {
        guard let part else { return nil }
        var arguments = [ArgumentExpression]()
        for (index, source) in part.arguments.enumerated() {
            do throws(ArgumentExpressionError) {
                arguments.append(try ArgumentExpression(parsing: source))
            } catch {
                throw internalError("\(field).arguments[\(index)]", error.message)
            }
        }
        return Part(key: part.key, arguments: arguments)
    }

    private static func string(
        _ part: MessagePart?, in strings: [String: String], plurals: [String: [String: [String: String]]], language: LanguageTag
    ) throws(TemplateLoadError) -> LocalizedString? {
        guard let part else { return nil }
        let field = "strings.\(language).\(part.key)"
        guard let text = strings[part.key] else { throw internalError(field, "missing") }
        let format = try compile(text, field: field)
        var substitutions = [String: LocalizedString.PluralForms]()
        for name in format.substitutionNames {
            guard let forms = plurals[part.key]?[name] else { throw internalError(field, "no plural forms for %#@\(name)@") }
            var compiled = [PluralCategory: FormatString]()
            for (category, form) in forms {
                guard let category = PluralCategory(rawValue: category) else { continue }
                compiled[category] = try compile(form, field: "plurals.\(language).\(part.key).\(name).\(category)")
            }
            substitutions[name] = LocalizedString.PluralForms(compiled)
        }
        return LocalizedString(format: format, substitutions: substitutions)
    }

    private static func compile(_ text: String, field: String) throws(TemplateLoadError) -> FormatString {
        do throws(FormatStringError) {
            return try FormatString(parsing: text)
        } catch {
            throw internalError(field, error.description)
        }
    }

    /// Validation rules out every case this reports; kept as an error rather than a crash.
    private static func internalError(_ field: String, _ message: String) -> TemplateLoadError {
        TemplateLoadError(problems: [TemplateProblem(file: "template", field: field, message: "\(field): \(message)")])
    }
}
