import Foundation
import HeraldCore

/// A whole template: what `templates/<name>/` holds, what PostgreSQL stores as one immutable
/// version, and what `PUT /v1/templates/{name}` accepts.
///
/// A value is not necessarily valid: ``validate()`` lists every problem, and
/// ``CompiledTemplate/init(_:)`` refuses an invalid document.
public struct TemplateDocument: Codable, Sendable, Equatable {
    /// Lowercase `[a-z0-9][a-z0-9_-]{0,63}`; also the folder name under `templates/`.
    public var name: String
    /// The BCP 47 tag of the language used when none of a device's languages match.
    public var defaultLanguage: String
    /// What the template is for, for people choosing one.
    public var description: String?
    /// `alert.title`, or `title-loc-key`/`title-loc-args` in client mode.
    public var title: MessagePart?
    /// `alert.subtitle`, or `subtitle-loc-key`/`subtitle-loc-args` in client mode.
    public var subtitle: MessagePart?
    /// `alert.body`, or `loc-key`/`loc-args` in client mode.
    public var body: MessagePart?
    /// In client mode, also send the default language's text in title/subtitle/body for
    /// devices whose app does not know the keys.
    public var clientFallback: Bool
    /// Payload defaults; a campaign's push options override them.
    public var payload: TemplatePayload
    /// language (BCP 47) → strings key → Apple format string.
    public var strings: [String: [String: String]]
    /// The plural substitutions the strings name with `%#@name@`: language (as in ``strings``)
    /// → strings key → substitution name → plural category (`zero`, `one`, `two`, `few`,
    /// `many`, `other`) → the form, whose specifiers show the counted number. Nil when no
    /// string has plurals, so documents without them keep their canonical JSON.
    public var plurals: [String: [String: [String: [String: String]]]]?

    public init(
        name: String,
        defaultLanguage: String,
        description: String? = nil,
        title: MessagePart? = nil,
        subtitle: MessagePart? = nil,
        body: MessagePart? = nil,
        clientFallback: Bool = false,
        payload: TemplatePayload = TemplatePayload(),
        strings: [String: [String: String]] = [:],
        plurals: [String: [String: [String: [String: String]]]]? = nil
    ) {
        self.name = name
        self.defaultLanguage = defaultLanguage
        self.description = description
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.clientFallback = clientFallback
        self.payload = payload
        self.strings = strings
        self.plurals = plurals
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, defaultLanguage, description, title, subtitle, body, clientFallback, payload, strings, plurals
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        defaultLanguage = try container.decode(String.self, forKey: .defaultLanguage)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        title = try container.decodeIfPresent(MessagePart.self, forKey: .title)
        subtitle = try container.decodeIfPresent(MessagePart.self, forKey: .subtitle)
        body = try container.decodeIfPresent(MessagePart.self, forKey: .body)
        clientFallback = try container.decodeIfPresent(Bool.self, forKey: .clientFallback) ?? false
        payload = try container.decodeIfPresent(TemplatePayload.self, forKey: .payload) ?? TemplatePayload()
        strings = try container.decodeIfPresent([String: [String: String]].self, forKey: .strings) ?? [:]
        plurals = try container.decodeIfPresent([String: [String: [String: [String: String]]]].self, forKey: .plurals)
        if plurals?.isEmpty == true { plurals = nil }
    }

    /// The document as JSON with sorted keys and no insignificant whitespace: equal documents
    /// give equal bytes, so the store hashes this to tell whether a sync changed anything.
    public func canonicalJSON() -> Data {
        // Non-finite numbers cannot make it fail: they are written as strings (validation
        // refuses them anyway).
        (try? CanonicalJSON.data(self)) ?? Data()
    }

    /// The message parts in payload order, with the names validation messages use.
    var parts: [(name: PartName, part: MessagePart)] {
        var parts = [(name: PartName, part: MessagePart)]()
        if let title { parts.append((.title, title)) }
        if let subtitle { parts.append((.subtitle, subtitle)) }
        if let body { parts.append((.body, body)) }
        return parts
    }
}

/// Which message part: names fields in problems (`body.arguments[1]`).
enum PartName: String, Sendable, CaseIterable {
    case title, subtitle, body
}
