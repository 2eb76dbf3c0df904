import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// What a direct send says, ready to be made for each recipient: a template compiled once,
/// or a checked payload.
struct DirectContent {
    /// One recipient's body, or the outcome of a recipient that gets none.
    enum Body {
        case send(pushType: PushType, encoded: [UInt8], language: LanguageTag?)
        case notSent(DeliveryOutcome)
    }

    private enum Source {
        case template(CompiledTemplate, RenderOptions)
        case payload(Payload, PushType)
    }

    private let source: Source

    /// Loads and compiles the template, or checks the payload; a `ValidationError` names the
    /// request's field when it cannot be sent to anyone.
    /// `loaded`: templates a batch's earlier requests loaded (by name and version), one read each.
    init(
        _ request: DirectSendRequest, templates: any TemplateRepository, loaded: inout [String: CompiledTemplate]
    )
        async throws
    {
        switch request.content {
        case .template(let name, let version, let localization, let variables):
            let key = "\(request.app.id)\u{0}\(name)\u{0}\(version ?? 0)"
            let template: CompiledTemplate
            if let known = loaded[key] {
                template = known
            } else {
                template = try await Self.template(name: name, version: version, appID: request.app.id, templates: templates)
                loaded[key] = template
            }
            let options = RenderOptions(localization: localization, variables: variables, pushOptions: request.pushOptions)
            source = .template(template, options)
        case .payload(let payload):
            let pushType = request.pushOptions.resolvedPushType
            do {
                try payload.validate(for: pushType)
            } catch {
                throw ValidationError(field: "payload", reason: "\(error)")
            }
            source = .payload(payload, pushType)
        }
    }

    /// The template's version (its latest when `version` is nil), compiled; a `ValidationError`
    /// names `<field>.name` or `<field>.version` when the app has no such template to send.
    static func template(
        name: String, version: Int?, appID: Int64, templates: any TemplateRepository, field: String = "template"
    ) async throws -> CompiledTemplate {
        // The latest version by its stamp: a version never changes, so one compiled already
        // (content-addressed) is used again without reading its document.
        if version == nil, let stamp = try await templates.latestVersion(name: name) {
            if let owner = stamp.appID, owner != appID {
                throw ValidationError(field: "\(field).name", reason: "no template has this name")
            }
            if let compiled = CompiledTemplates.shared.find(name: name, stamp: stamp) { return compiled }
            guard let record = try await templates.version(name: name, version: stamp.version) else {
                throw ValidationError(field: "\(field).name", reason: "no template has this name")
            }
            let compiled = try compile(record, field: field)
            CompiledTemplates.shared.keep(
                compiled, name: name,
                stamp: TemplateVersionStamp(
                    version: record.version, contentHash: record.contentHash, appID: record.appID))
            return compiled
        }
        let record: TemplateVersionRecord?
        if let version {
            record = try await templates.version(name: name, version: version)
        } else {
            record = nil
        }
        guard let record else {
            // A missing version of another app's template is a missing template too.
            guard version != nil, let latest = try await templates.latest(name: name), latest.appID == nil || latest.appID == appID
            else {
                throw ValidationError(field: "\(field).name", reason: "no template has this name")
            }
            throw ValidationError(field: "\(field).version", reason: "the template has no version \(version ?? 0)")
        }
        if let owner = record.appID, owner != appID {
            // Another app's template is not this app's to send (nor to know of).
            throw ValidationError(field: "\(field).name", reason: "no template has this name")
        }
        return try compile(record, field: field)
    }

    private static func compile(_ record: TemplateVersionRecord, field: String) throws -> CompiledTemplate {
        do {
            return try CompiledTemplate(try record.templateDocument())
        } catch {
            throw ValidationError(field: "\(field).name", reason: "version \(record.version) does not load: \(error)")
        }
    }

    /// The body `recipient` gets. Authorization shapes a payload as it shapes a rendered
    /// template (docs/rules.md rule 6): no alert push where alerts are off, no sound or badge where
    /// they are off.
    func body(for recipient: Recipient) -> Body {
        switch source {
        case .template(let template, let options):
            let outcome = template.render(for: recipient, options: options)
            guard case .payload(let rendered) = outcome else {
                return .notSent(DeliveryDecision.record(deviceID: 0, notRendered: outcome).outcome)
            }
            return .send(pushType: rendered.pushType, encoded: rendered.encoded, language: rendered.language)
        case .payload(var payload, let pushType):
            if pushType == .alert, !recipient.authorization.allowsAlerts {
                return .notSent(.skipped(.notAuthorized))
            }
            PayloadShaping.shape(&payload, for: recipient.authorization)
            return .send(pushType: pushType, encoded: payload.encoded(), language: nil)
        }
    }
}
