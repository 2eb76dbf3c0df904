import HeraldCore

/// One language's string for a message part, compiled: its format and, for each plural
/// substitution the format names (`%#@items@`), the form of each category.
struct LocalizedString: Sendable {
    /// A plural substitution's forms, one slot per ``PluralCategory`` (`other` always present).
    struct PluralForms: Sendable {
        /// Indexed by the category's position in `PluralCategory.allCases`.
        let forms: [FormatString?]

        init(_ forms: [PluralCategory: FormatString]) {
            self.forms = PluralCategory.allCases.map { forms[$0] }
        }

        /// The category a value selects. An explicit `zero` form is used for 0 in every
        /// language, as Apple's `.stringsdict` and String Catalog plurals do; otherwise the
        /// language's CLDR rule. Text that is not a number selects `other`.
        func category(of value: String, rules: PluralRuleSet) -> PluralCategory {
            if let integer = Int(value) {
                if integer == 0, forms[PluralCategory.zero.position] != nil { return .zero }
                return rules.category(of: integer)
            }
            guard let operands = PluralOperands(value) else { return .other }
            if operands.n == 0, forms[PluralCategory.zero.position] != nil { return .zero }
            return rules.category(for: operands)
        }

        /// The form of `category`, or `other` where the string has none for it.
        func form(_ category: PluralCategory) -> FormatString {
            // `other` is required by validation; an empty format is the unreachable fallback.
            forms[category.position] ?? forms[PluralCategory.other.position] ?? Self.empty
        }

        private static let empty = try! FormatString(parsing: "")
    }

    let format: FormatString
    let substitutions: [String: PluralForms]
    /// The substitution names in the order the format first uses them.
    let substitutionOrder: [String]
    /// Substitution name → the 0-based index of the argument that selects its form (the first
    /// token naming it).
    let selectingIndex: [String: Int]

    init(format: FormatString, substitutions: [String: PluralForms] = [:]) {
        self.format = format
        self.substitutions = substitutions
        self.substitutionOrder = format.substitutionNames
        var selecting = [String: Int]()
        for case .plural(let index, let name) in format.segments where selecting[name] == nil {
            selecting[name] = index
        }
        self.selectingIndex = selecting
    }

    /// True when rendering is plain splicing of texts into the format.
    var isPlain: Bool { format.isPlain && substitutions.isEmpty }

    /// The text for `arguments` in the language `formatting` describes. `categories` forces the
    /// category of substitutions by name (a skeleton is built per combination of categories; its
    /// holes are not numbers yet).
    func render(arguments: [String], formatting: TextFormatting, categories: [String: PluralCategory] = [:]) -> String {
        if isPlain, !formatting.isolatesArguments { return format.render(arguments: arguments) }
        var text = String()
        text.reserveCapacity(format.literalByteCount + 16 * arguments.count)
        for segment in format.segments {
            switch segment {
            case .literal(let literal):
                text.append(literal)
            case .argument(let index, let conversion):
                formatting.appendArgument(formatting.convert(Self.value(index, arguments), conversion), to: &text)
            case .plural(let index, let name):
                guard let forms = substitutions[name] else { continue }
                let value = Self.value(index, arguments)
                let category = categories[name] ?? forms.category(of: value, rules: formatting.plurals)
                // Every specifier of a form shows the counted number.
                for piece in forms.form(category).segments {
                    switch piece {
                    case .literal(let literal): text.append(literal)
                    case .argument(_, let conversion): formatting.appendArgument(formatting.convert(value, conversion), to: &text)
                    case .plural: break
                    }
                }
            }
        }
        return text
    }

    /// The plural category each substitution gets for these arguments, in ``substitutionOrder``.
    func categories(arguments: [String], rules: PluralRuleSet) -> [PluralCategory] {
        substitutionOrder.map { name in
            substitutions[name]?.category(of: Self.value(selectingIndex[name] ?? -1, arguments), rules: rules) ?? .other
        }
    }

    /// Every conversion each 0-based argument index is shown with, plural forms included.
    var conversions: [Int: Set<FormatString.Conversion>] {
        var conversions = format.conversions
        for case .plural(let index, let name) in format.segments {
            for form in substitutions[name]?.forms ?? [] {
                for case .argument(_, let conversion) in form?.segments ?? [] {
                    conversions[index, default: []].insert(conversion)
                }
            }
        }
        return conversions
    }

    private static func value(_ index: Int, _ arguments: [String]) -> String {
        index >= 0 && index < arguments.count ? arguments[index] : ""
    }
}
