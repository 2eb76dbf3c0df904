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
    /// Skeletons of languages whose plural forms depend on the device's counts: per language,
    /// by authorization shape and combination of categories (made when the plan is).
    private var pluralSkeletons: [[Slot]]
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
        self.pluralSkeletons = Array(repeating: [], count: template.languages.count)
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
        let shape = Self.shape(of: recipient.authorization)
        if recipientArguments.isEmpty {
            // Every device of this language and shape gets the same bytes.
            guard let skeleton = cachedSkeleton(index: index, shape: shape, plan: nil, combination: 0, recipient: recipient),
                let encoded = skeleton.fill([])
            else { return template.render(for: recipient, options: options) }
            return .payload(RenderedNotification(pushType: pushType, language: skeleton.language, encoded: encoded))
        }
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
            if !built.selectors.isEmpty {
                pluralSkeletons[index] = Array(repeating: .unbuilt, count: Self.shapes * built.combinationCount)
            }
            plan = built
        }
        var values = [String]()
        let formatting = template.localizations[index].formatting
        values.reserveCapacity(recipientArguments.count)
        for argument in recipientArguments {
            guard let value = argument.evaluate(for: recipient, variables: options.variables, formatting: formatting) else {
                return template.render(for: recipient, options: options)
            }
            values.append(value)
        }
        let combination = plan.selectors.isEmpty ? 0 : plan.combination(values)
        guard let skeleton = cachedSkeleton(index: index, shape: shape, plan: plan, combination: combination, recipient: recipient)
        else { return template.render(for: recipient, options: options) }
        plan.convert(&values)
        guard let encoded = skeleton.fill(values) else { return template.render(for: recipient, options: options) }
        return .payload(RenderedNotification(pushType: pushType, language: skeleton.language, encoded: encoded))
    }

    /// The skeleton of a language, authorization shape and combination of plural categories,
    /// built on first use; nil where the full renderer must decide.
    private mutating func cachedSkeleton(
        index: Int, shape: Int, plan: SkeletonPlan?, combination: Int, recipient: Recipient
    ) -> PayloadSkeleton? {
        let combinations = plan.map { $0.selectors.isEmpty ? 0 : $0.combinationCount } ?? 0
        let key = combinations > 0 ? shape * combinations + combination : index * Self.shapes + shape
        switch combinations > 0 ? pluralSkeletons[index][key] : skeletons[key] {
        case .built(let built):
            return built
        case .unavailable:
            return nil
        case .unbuilt:
            let built = template.skeleton(
                languageIndex: index, authorization: recipient.authorization, options: options, settings: settings,
                forced: plan?.forced(combination) ?? CompiledTemplate.ForcedCategories())
            let slot = built.map(Slot.built) ?? .unavailable
            if combinations > 0 { pluralSkeletons[index][key] = slot } else { skeletons[key] = slot }
            return built
        }
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
