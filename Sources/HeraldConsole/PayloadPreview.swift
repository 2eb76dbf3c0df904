import APNSCore
import HeraldCore
import HeraldTemplates

/// What devices of chosen languages would get from a template version: in each language the
/// exact payload in both modes with its size against APNs's limit, and what a device that
/// turned off badges and sounds gets in the campaign's mode.
struct PayloadPreview {
    let record: TemplateVersionRecord
    let variables: [String: PayloadValue]
    let pushOptions: PushOptions
    let localization: Campaign.LocalizationMode
    /// A sample device's attributes, for templates that read `attributes.NAME`.
    var attributes: [String: PayloadValue] = [:]

    static let maximumLanguages = 10

    /// `variant` names the A/B variant whose message this is, in the heading.
    func render(languages asked: [String], variant: String? = nil) throws -> HTML {
        let template = try CompiledTemplate(try record.templateDocument())
        var languages = [LanguageTag]()
        var problems = [String]()
        for text in asked.prefix(Self.maximumLanguages) {
            if let tag = LanguageTag(text) { languages.append(tag) } else { problems.append("\(text) is not a language tag") }
        }
        let full = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true)
        let quiet = AuthorizationSettings(status: .authorized, alert: true, badge: false, sound: false)
        func render(_ tag: LanguageTag, mode: Campaign.LocalizationMode, authorization: AuthorizationSettings) -> HTML {
            let recipient = Recipient(languages: [tag], authorization: authorization, userID: nil, attributes: attributes)
            let options = RenderOptions(localization: mode, variables: variables, pushOptions: pushOptions)
            switch template.render(for: recipient, options: options) {
            case .payload(let notification):
                let limit = notification.pushType.maximumPayloadBytes
                let bytes = notification.encoded.count
                return """
                    <pre>\(String(decoding: notification.encoded, as: UTF8.self))</pre>
                    <p class="bytes\(bytes > limit ? " over" : "")">\(bytes) of \(limit) bytes\(notification.shortened ? " (text shortened to fit)" : "")</p>
                    """
            case .skipped(let reason):
                return "<p class=\"muted\">Not sent: \(reason.description)</p>"
            case .failed(let error):
                return "<p class=\"error\">Cannot render: \(error.description)</p>"
            }
        }
        /// The plural form each counted argument picks, in server mode.
        func plurals(_ tag: LanguageTag) -> HTML {
            let recipient = Recipient(languages: [tag], authorization: full, userID: nil, attributes: attributes)
            let options = RenderOptions(localization: .server, variables: variables, pushOptions: pushOptions)
            let choices = template.pluralChoices(for: recipient, options: options)
            guard !choices.isEmpty else { return .empty }
            let items = choices.html { choice in
                "<li>\(choice.part) <code>%#@\(choice.substitution)@</code>: \(choice.value) → <b>\(choice.category.rawValue)</b></li>"
            }
            return "<ul class=\"plurals\">\(items)</ul>"
        }
        let cards = languages.html { tag in
            """
            <div class="card preview" data-language="\(tag.value)"><h3>\(tag.value) → \(template.language(for: [tag]).value)</h3>
            \(plurals(tag))
            <div class="grid2"><div><b>Server-side text</b>\(render(tag, mode: .server, authorization: full))</div>
            <div><b>loc-key for the app</b>\(render(tag, mode: .client, authorization: full))</div></div>
            <p><b>A device that turned off badges and sounds</b> (\(localization == .server ? "server-side text" : "loc-key"))</p>
            \(render(tag, mode: localization, authorization: quiet))
            </div>
            """
        }
        return """
            <h2>\(variant.map { "Variant \($0): " } ?? "")Preview of \(record.name) v\(record.version)</h2>
            \(problems.isEmpty ? .empty : "<p class=\"error\">\(problems.joined(separator: "; "))</p>" as HTML)
            \(cards)
            """
    }
}
