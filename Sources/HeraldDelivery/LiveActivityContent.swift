import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// What an update says to each token's device: the `aps` of the update with its alert, a
/// template's rendered in the device's language (docs/live-activities.md "Payload").
struct LiveActivityContent {
    enum Body: Equatable {
        case send(encoded: [UInt8], language: LanguageTag?)
        case notSent(DeliveryOutcome, language: LanguageTag?)
    }

    let update: LiveActivityUpdate
    private let template: (CompiledTemplate, RenderOptions)?
    /// Every device's body when nothing in it depends on the device (no alert template):
    /// made once for the whole fan-out.
    private var shared: Body?

    /// Whether the body depends on the device (an alert template renders in its languages).
    var needsDevices: Bool { template != nil }

    /// An alert shown with a Live Activity needs no notification permission: the template is
    /// rendered as for a device that allows alerts and sounds.
    static let alertAuthorization = AuthorizationSettings(status: .authorized, alert: true, badge: false, sound: true)

    /// Loads the update's alert template, if it has one; a `ValidationError` names
    /// `alert.template` when the app has no such template.
    init(_ update: LiveActivityUpdate, templates: any TemplateRepository) async throws {
        self.update = update
        if case .template(let name, let version, let localization, let variables)? = update.request.alert {
            let compiled = try await DirectContent.template(
                name: name, version: version, appID: update.appID, templates: templates, field: "alert.template")
            template = (compiled, RenderOptions(localization: localization, variables: variables, pushOptions: PushOptions()))
        } else {
            template = nil
        }
        if template == nil { shared = body(for: nil) }
    }

    /// The body one device gets.
    func body(for device: Device?) -> Body {
        if let shared { return shared }
        let request = update.request
        var aps = Payload.APS()
        aps.event = request.event
        aps.timestamp = update.timestamp
        aps.contentState = .object(request.contentState)
        aps.staleDate = request.staleDate.map(Self.unixSeconds)
        aps.dismissalDate = request.dismissalDate.map(Self.unixSeconds)
        aps.relevanceScore = request.relevanceScore
        var language: LanguageTag?
        switch request.alert {
        case .text(let alert)?:
            aps.alert = .liveActivity(alert)
        case .template?:
            guard let (compiled, options) = template else { return .notSent(.failed(.renderFailed), language: nil) }
            var recipient = device.map(Recipient.init(device:)) ?? Recipient(authorization: Self.alertAuthorization)
            recipient.authorization = Self.alertAuthorization
            switch compiled.render(for: recipient, options: options) {
            case .payload(let rendered):
                language = rendered.language
                guard let alert = Self.liveActivityAlert(from: rendered.payload) else {
                    return .notSent(.failed(.renderFailed), language: language)
                }
                aps.alert = .liveActivity(alert)
            case let outcome:
                let record = DeliveryDecision.record(deviceID: 0, notRendered: outcome)
                return .notSent(record.outcome, language: record.language)
            }
        case nil:
            break
        }
        do {
            return .send(encoded: try Payload(aps: aps).validate(for: .liveactivity), language: language)
        } catch {
            return .notSent(.failed(status: nil, reason: "PayloadInvalid"), language: language)
        }
    }

    /// Why the update cannot be sent to anyone, checked once before it is queued: its payload
    /// for a device without languages (the largest an inline alert makes) is over the limit or
    /// breaks a rule. Nil when it can be sent.
    func problem() -> ValidationError? {
        var aps = Payload.APS()
        aps.event = update.request.event
        aps.timestamp = update.timestamp
        aps.contentState = .object(update.request.contentState)
        aps.staleDate = update.request.staleDate.map(Self.unixSeconds)
        aps.dismissalDate = update.request.dismissalDate.map(Self.unixSeconds)
        aps.relevanceScore = update.request.relevanceScore
        if case .text(let alert)? = update.request.alert { aps.alert = .liveActivity(alert) }
        do {
            try Payload(aps: aps).validate(for: .liveactivity)
            return nil
        } catch .payloadTooLarge(let size, let limit) {
            return ValidationError(
                field: "contentState", reason: "the payload would be \(size) bytes, over APNs's \(limit)-byte limit")
        } catch {
            return ValidationError(field: "contentState", reason: "\(error)")
        }
    }

    static func unixSeconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    /// A rendered alert template's text as a Live Activity alert: title and body as text, or as
    /// loc-keys for the app to localize; its sound's name.
    static func liveActivityAlert(from payload: Payload) -> Payload.LiveActivityAlert? {
        let sound: String?
        switch payload.aps.sound {
        case .named(let name)?: sound = name
        case .critical(let name, _)?: sound = name
        case nil: sound = nil
        }
        switch payload.aps.alert {
        case .body(let text)?:
            return Payload.LiveActivityAlert(title: .plain(""), body: .plain(text), sound: sound)
        case .fields(let alert)?:
            let title: Payload.LiveActivityAlert.Text =
                alert.title.map { .plain($0) }
                ?? alert.titleLocKey.map { .localized(key: $0, arguments: alert.titleLocArgs ?? []) } ?? .plain("")
            let body: Payload.LiveActivityAlert.Text =
                alert.body.map { .plain($0) } ?? alert.locKey.map { .localized(key: $0, arguments: alert.locArgs ?? []) }
                ?? .plain("")
            return Payload.LiveActivityAlert(title: title, body: body, sound: sound)
        case .liveActivity(let alert)?:
            return alert
        case nil:
            return nil
        }
    }
}
