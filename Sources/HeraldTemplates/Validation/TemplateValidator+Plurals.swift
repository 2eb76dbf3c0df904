import HeraldCore

/// The checks of plural substitutions (`%#@name@` and their forms) and of the types arguments
/// are shown with (`%d` needs a number).
extension TemplateValidator {
    /// The forms of every substitution `format` names: each present, with `other`, valid
    /// category names, forms that compile and show nothing but their own number; no
    /// substitution left unused or selected by two different arguments.
    mutating func checkSubstitutions(
        of format: FormatString, part: MessagePart, named name: PartName, languageKey: String, tag: LanguageTag
    ) {
        let tables = document.plurals?[languageKey]?[part.key] ?? [:]
        var selecting = [String: Int]()
        for case .plural(let index, let substitution) in format.segments {
            if let other = selecting[substitution], other != index {
                report(
                    language: languageKey, key: part.key, field: "strings.\(languageKey).\(part.key)",
                    "\(part.key) uses %#@\(substitution)@ for arguments \(other + 1) and \(index + 1); one substitution counts one argument")
            }
            selecting[substitution] = index
            record(.integer, index: index, part: name, language: languageKey)
        }
        for substitution in format.substitutionNames {
            let field = "plurals.\(languageKey).\(part.key).\(substitution)"
            guard let forms = tables[substitution] else {
                report(
                    language: languageKey, key: part.key, field: field,
                    "\(part.key) in \(tag) uses %#@\(substitution)@ but has no plural forms for \(substitution)")
                continue
            }
            checkForms(forms, field: field, key: part.key, languageKey: languageKey, index: selecting[substitution] ?? 0, part: name)
        }
        for substitution in tables.keys.sorted() where selecting[substitution] == nil {
            report(
                language: languageKey, key: part.key, field: "plurals.\(languageKey).\(part.key).\(substitution)",
                "plural forms \(substitution) are not used: \(part.key) in \(tag) has no %#@\(substitution)@")
        }
        for case .argument(let index, let conversion) in format.segments {
            record(conversion, index: index, part: name, language: languageKey)
        }
    }

    private mutating func checkForms(
        _ forms: [String: String], field: String, key: String, languageKey: String, index: Int, part: PartName
    ) {
        if forms["other"] == nil {
            report(language: languageKey, key: key, field: "\(field).other", "\(field) has no other form, which every plural needs")
        }
        for category in forms.keys.sorted() {
            let formField = "\(field).\(category)"
            guard PluralCategory(rawValue: category) != nil else {
                let known = PluralCategory.allCases.map(\.rawValue).joined(separator: ", ")
                report(language: languageKey, key: key, field: formField, "unknown plural category \"\(category)\" (expected one of \(known))")
                continue
            }
            let text = forms[category] ?? ""
            if let scalar = TextRules.forbiddenCharacter(in: text) {
                report(language: languageKey, key: key, field: formField, "\(formField) \(TextRules.reason(scalar))")
                continue
            }
            do throws(FormatStringError) {
                let form = try FormatString(parsing: text)
                // Sequential `%d`, or the counted argument's own position (`%2$d` in a
                // .stringsdict whose string has `%2$#@name@`).
                let positions = form.usedPositions
                if !form.substitutionNames.isEmpty || positions.count > 1 || positions.contains(where: { $0 != 1 && $0 != index + 1 }) {
                    report(
                        language: languageKey, key: key, field: formField,
                        "\(formField) may show only the number it counts (%d, %lld, %.1f or %@), not other arguments or substitutions")
                }
                for case .argument(_, let conversion) in form.segments {
                    record(conversion, index: index, part: part, language: languageKey)
                }
            } catch {
                report(language: languageKey, key: key, field: formField, "\(formField): \(error)")
            }
        }
    }

    /// Plural forms only for languages that have strings.
    mutating func checkPluralLanguages(languages: [(key: String, tag: LanguageTag)]) {
        let known = Set(languages.map(\.key))
        for language in (document.plurals ?? [:]).keys.sorted() where !known.contains(language) {
            report(field: "plurals.\(language)", "plural forms for \"\(language)\", which has no strings")
        }
    }

    private mutating func record(_ conversion: FormatString.Conversion, index: Int, part: PartName, language: String) {
        guard conversion != .object, shownAs[part]?[index] == nil else { return }
        shownAs[part, default: [:]][index] = (conversion, language)
    }

    /// An argument shown as a number (`%d`, `%.2f`) or counted by a plural must be able to be
    /// one: no text format (`| currency(EUR)`) and no fallback literal that is not a number.
    mutating func checkArgumentTypes() {
        for (name, part) in document.parts {
            for (index, source) in part.arguments.enumerated() {
                let field = "\(name.rawValue).arguments[\(index)]"
                guard let expression = try? ArgumentExpression(parsing: source) else { continue }
                if let filter = expression.filter {
                    for case .literal(let text) in expression.terms where !filter.accepts(text) {
                        report(field: field, "\(field): the literal \"\(text)\" cannot be formatted by | \(filter)")
                    }
                }
                guard let shown = shownAs[name]?[index] else { continue }
                let specifier = Self.specifier(shown.conversion)
                if let filter = expression.filter {
                    report(
                        field: field,
                        "\(field) is formatted as text by | \(filter), but strings.\(shown.language).\(part.key) shows it as a number (\(specifier))")
                    continue
                }
                for case .literal(let text) in expression.terms where Double(text) == nil {
                    report(
                        field: field,
                        "\(field) may be the literal \"\(text)\", but strings.\(shown.language).\(part.key) shows it as a number (\(specifier))")
                }
            }
        }
    }

    private static func specifier(_ conversion: FormatString.Conversion) -> String {
        switch conversion {
        case .object: "%@"
        case .integer: "%d or a plural"
        case .decimal(let precision): "%.\(precision)f"
        }
    }
}
