import APNSCore
import HeraldCore

/// Renders one template with one set of options for many devices, as a campaign does.
///
/// Each language and authorization shape is encoded once into a skeleton; a device's payload
/// is that skeleton with its own argument texts escaped into the holes, the same bytes
/// ``CompiledTemplate/render(for:options:)`` gives. Whatever the skeleton cannot decide (an
/// argument without a value, a payload over the limit that must be shortened) goes through
/// the full renderer. Not shared between tasks: each worker has its own.
public struct TemplateRenderer: Sendable {
    public let template: CompiledTemplate
    public let options: RenderOptions
    private let settings: PayloadOptions
    private let pushType: PushType
    private let recipientArguments: [ArgumentExpression]
    /// One slot per language and authorization shape (``shape(of:)``).
    private var skeletons: [Slot]
    /// Per language: how its holes are shown and which select plural forms.
    private var plans: [Plan]
    /// Skeletons of languages whose plural forms depend on the device's counts: by slot and
    /// combination of categories.
    private var pluralSkeletons: [Int: Slot] = [:]
    /// Negotiated language index per preference list seen; devices share a few hundred lists.
    private var negotiated: [[LanguageTag]: Int] = [:]
    /// A background push is the same for every device: rendered once.
    private var background: RenderOutcome?

    private enum Slot: Sendable {
        case unbuilt
        case unavailable
        case built(PayloadSkeleton)
    }

    private enum Plan: Sendable {
        case unbuilt
        case unavailable
        case built(SkeletonPlan)
    }

    public init(template: CompiledTemplate, options: RenderOptions) {
        self.template = template
        self.options = options
        self.settings = template.settings(for: options)
        self.pushType = settings.pushType ?? .alert
        self.recipientArguments = template.recipientArguments
        self.skeletons = Array(repeating: .unbuilt, count: template.languages.count * Self.shapes)
        self.plans = Array(repeating: .unbuilt, count: template.languages.count)
    }

    /// The notification `recipient` gets; equal to `template.render(for: recipient, options: options)`.
    public mutating func render(for recipient: Recipient) -> RenderOutcome {
        if pushType == .background {
            if background == nil { background = template.background(settings: settings) }
            return background!
        }
        if pushType == .alert, !recipient.authorization.allowsAlerts {
            return .skipped(.notAuthorized)
        }
        let index = languageIndex(for: recipient.languages)
        let plan: SkeletonPlan
        switch plans[index] {
        case .built(let built):
            plan = built
        case .unavailable:
            return template.render(for: recipient, options: options)
        case .unbuilt:
            guard let built = template.skeletonPlan(languageIndex: index, mode: options.mode) else {
                plans[index] = .unavailable
                return template.render(for: recipient, options: options)
            }
            plans[index] = .built(built)
            plan = built
        }
        var values = [String]()
        if !recipientArguments.isEmpty {
            let context = ArgumentContext(
                recipient: recipient, variables: options.variables, formatting: template.localizations[index].formatting)
            values.reserveCapacity(recipientArguments.count)
            for argument in recipientArguments {
                guard let value = argument.evaluate(in: context) else { return template.render(for: recipient, options: options) }
                values.append(value)
            }
        }
        var key = index * Self.shapes + Self.shape(of: recipient.authorization)
        if !plan.selectors.isEmpty { key = key * SkeletonPlan.combinations + plan.combination(values) }
        let skeleton: PayloadSkeleton
        let cached = plan.selectors.isEmpty ? skeletons[key] : pluralSkeletons[key] ?? .unbuilt
        switch cached {
        case .built(let built):
            skeleton = built
        case .unavailable:
            return template.render(for: recipient, options: options)
        case .unbuilt:
            let combination = plan.selectors.isEmpty ? 0 : key % SkeletonPlan.combinations
            let built = template.skeleton(
                languageIndex: index, authorization: recipient.authorization, options: options, settings: settings,
                forced: plan.forced(combination))
            let slot = built.map(Slot.built) ?? .unavailable
            if plan.selectors.isEmpty { skeletons[key] = slot } else { pluralSkeletons[key] = slot }
            guard let built else { return template.render(for: recipient, options: options) }
            skeleton = built
        }
        plan.convert(&values)
        guard let encoded = skeleton.fill(values) else { return template.render(for: recipient, options: options) }
        return .payload(RenderedNotification(pushType: pushType, language: skeleton.language, encoded: encoded))
    }

    private mutating func languageIndex(for languages: [LanguageTag]) -> Int {
        if let index = negotiated[languages] { return index }
        let index = template.languageIndex(for: languages)
        if negotiated.count < Self.negotiatedLimit { negotiated[languages] = index }
        return index
    }

    /// Bounds the memory of ``negotiated`` when preference lists are unusually varied.
    private static let negotiatedLimit = 4096

    /// Authorization shaping reads four settings (``PayloadShaping``); alerts are decided above.
    private static let shapes = 16

    private static func shape(of authorization: AuthorizationSettings) -> Int {
        (authorization.sound ? 1 : 0) | (authorization.badge ? 2 : 0) | (authorization.criticalAlert ? 4 : 0)
            | (authorization.timeSensitive ? 8 : 0)
    }
}
