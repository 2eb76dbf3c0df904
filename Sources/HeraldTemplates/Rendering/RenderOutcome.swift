import APNSCore
import HeraldCore

/// What rendering a template for one device gives.
public enum RenderOutcome: Sendable, Equatable {
    /// A payload ready to send.
    case payload(RenderedNotification)
    /// The device is skipped and counted as skipped, not failed.
    case skipped(SkipReason)
    /// The template cannot produce a payload for this device.
    case failed(RenderError)

    /// The notification, when there is one.
    public var notification: RenderedNotification? {
        if case .payload(let notification) = self { return notification }
        return nil
    }
}

/// A rendered notification: its encoded bytes (checked against the push type's rules and
/// limit; APNSCore's encoding, or a ``TemplateRenderer`` skeleton of it) and the language chosen.
public struct RenderedNotification: Sendable, Equatable {
    public var pushType: PushType
    public var language: LanguageTag
    /// The request body, at most the push type's limit.
    public var encoded: [UInt8]
    /// True when server-rendered text was shortened to fit.
    public var shortened: Bool

    public init(pushType: PushType, language: LanguageTag, encoded: [UInt8], shortened: Bool = false) {
        self.pushType = pushType
        self.language = language
        self.encoded = encoded
        self.shortened = shortened
    }

    /// The payload, decoded from the bytes (previews and tests; sending uses the bytes).
    public var payload: Payload {
        (try? Payload(json: encoded)) ?? Payload()
    }
}

/// Why a device gets no notification although nothing is wrong with the template.
public enum SkipReason: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// An alert push to a device whose user does not allow alerts (docs/rules.md rule 6).
    case notAuthorized
    /// An argument expression had no value for this device and no fallback; holds its source,
    /// e.g. `vars.storeName`.
    case missingArgument(String)

    public var description: String {
        switch self {
        case .notAuthorized: "skip: not authorized for alerts"
        case .missingArgument(let expression): "skip: no value for argument \(expression)"
        }
    }
}

/// Why a template could not be rendered for a device; names the template and language.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var template: String
    public var language: String
    /// One line, e.g. "the payload is 5012 bytes, over the 4096-byte limit …".
    public var reason: String

    public init(template: String, language: String, reason: String) {
        self.template = template
        self.language = language
        self.reason = reason
    }

    public var description: String { "template \(template), language \(language): \(reason)" }
}
