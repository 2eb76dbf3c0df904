import HeraldCore

/// What a ``TemplateRenderer`` needs to fill one language's skeletons for a device, beyond the
/// argument texts: how each hole's text is shown (`%d` in German groups `1.234`), and which
/// holes select a plural form, so the device's counts pick the skeleton built for their
/// categories.
///
/// Nil from ``CompiledTemplate/skeletonPlan(languageIndex:mode:)`` when one hole would need two
/// different texts (`%d` in one place and `%@` in another, or a client-mode `loc-args` entry
/// and a converted fallback text), or more plural selectors than ``maximumSelectors``: those
/// devices go through the full renderer.
final class SkeletonPlan: Sendable {
    /// A hole whose count selects the form of a plural substitution.
    struct Selector: Sendable {
        let part: PartName
        let name: String
        let hole: Int
        let forms: LocalizedString.PluralForms
    }

    /// How each hole's text is shown, in hole order.
    let conversions: [FormatString.Conversion]
    let selectors: [Selector]
    /// The formatting of the text the holes are converted for.
    let formatting: TextFormatting

    init(conversions: [FormatString.Conversion], selectors: [Selector], formatting: TextFormatting) {
        self.conversions = conversions
        self.selectors = selectors
        self.formatting = formatting
        self.convertsHoles = conversions.contains { $0 != .object }
        self.combinationCount = (0..<selectors.count).reduce(1) { product, _ in product * 6 }
    }

    /// 6 to the power of the selectors: how many skeletons one shape can have.
    let combinationCount: Int

    /// True when some hole is shown other than as its text.
    let convertsHoles: Bool

    /// 6⁴ combinations of categories at most.
    static let maximumSelectors = 4

    /// The hole texts as shown.
    func convert(_ values: inout [String]) {
        guard convertsHoles else { return }
        for (hole, conversion) in conversions.enumerated() where conversion != .object && hole < values.count {
            values[hole] = formatting.convert(values[hole], conversion)
        }
    }

    /// The combination of plural categories the raw hole texts select (0 without selectors).
    func combination(_ values: [String]) -> Int {
        var combination = 0
        for selector in selectors.reversed() {
            let category = selector.forms.category(of: values[selector.hole], rules: formatting.plurals)
            combination = combination * 6 + category.position
        }
        return combination
    }

    /// The categories a combination stands for, per part and substitution.
    func forced(_ combination: Int) -> CompiledTemplate.ForcedCategories {
        var forced = CompiledTemplate.ForcedCategories()
        var rest = combination
        for selector in selectors {
            let category = PluralCategory.allCases[rest % 6]
            rest /= 6
            switch selector.part {
            case .title: forced.title[selector.name] = category
            case .subtitle: forced.subtitle[selector.name] = category
            case .body: forced.body[selector.name] = category
            }
        }
        return forced
    }

}

extension CompiledTemplate {
    /// The plan for one language's skeletons in `mode`, or nil when they cannot be used.
    func skeletonPlan(languageIndex index: Int, mode: LocalizationMode) -> SkeletonPlan? {
        // The texts Herald renders itself: the language's in server mode; in client mode only
        // the default language's fallback text, beside loc-args that carry the texts as they are.
        let rendered: Localization?
        switch mode {
        case .server: rendered = localizations[index]
        case .client: rendered = document.clientFallback ? localizations[defaultIndex] : nil
        }
        var conversions = [FormatString.Conversion]()
        var selectors = [SkeletonPlan.Selector]()
        for (name, part, string) in [
            (PartName.title, title, rendered?.title), (.subtitle, subtitle, rendered?.subtitle), (.body, body, rendered?.body),
        ] {
            guard let part else { continue }
            let used = string?.conversions ?? [:]
            var holes = [Int: Int]()
            for (argumentIndex, argument) in part.arguments.enumerated() where argument.readsRecipient {
                var shown = used[argumentIndex] ?? []
                if mode == .client { shown.insert(.object) }
                guard shown.count <= 1 else { return nil }
                holes[argumentIndex] = conversions.count
                conversions.append(shown.first ?? .object)
            }
            guard let string else { continue }
            for substitution in string.substitutionOrder {
                guard let argumentIndex = string.selectingIndex[substitution], let hole = holes[argumentIndex],
                    let forms = string.substitutions[substitution]
                else { continue }
                selectors.append(SkeletonPlan.Selector(part: name, name: substitution, hole: hole, forms: forms))
            }
        }
        guard selectors.count <= SkeletonPlan.maximumSelectors else { return nil }
        return SkeletonPlan(
            conversions: conversions, selectors: selectors, formatting: (rendered ?? localizations[index]).formatting)
    }
}
