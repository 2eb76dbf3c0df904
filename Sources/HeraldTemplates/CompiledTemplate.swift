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

    /// One language's compiled strings, present exactly where the part is.
    struct Localization: Sendable {
        let title: FormatString?
        let subtitle: FormatString?
        let body: FormatString?
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
        var tables = [(tag: LanguageTag, strings: [String: String])]()
        for (key, strings) in document.strings {
            guard let tag = LanguageTag(key) else { throw Self.internalError("strings.\(key)", "not a language tag") }
            tables.append((tag: tag, strings: strings))
        }
        // A background template has no text, so it may come without strings at all.
        if document.parts.isEmpty, !tables.contains(where: { $0.tag == defaultLanguage }) {
            tables.append((tag: defaultLanguage, strings: [:]))
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
            localizations.append(
                Localization(
                    title: try Self.format(document.title, in: table.strings, language: table.tag),
                    subtitle: try Self.format(document.subtitle, in: table.strings, language: table.tag),
                    body: try Self.format(document.body, in: table.strings, language: table.tag)
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

    private static func format(_ part: MessagePart?, in strings: [String: String], language: LanguageTag)
        throws(TemplateLoadError) -> FormatString?
    {
        guard let part else { return nil }
        guard let text = strings[part.key] else {
            throw internalError("strings.\(language).\(part.key)", "missing")
        }
        do throws(FormatStringError) {
            return try FormatString(parsing: text)
        } catch {
            throw internalError("strings.\(language).\(part.key)", error.description)
        }
    }

    /// Validation rules out every case this reports; kept as an error rather than a crash.
    private static func internalError(_ field: String, _ message: String) -> TemplateLoadError {
        TemplateLoadError(problems: [TemplateProblem(file: "template", field: field, message: "\(field): \(message)")])
    }
}
