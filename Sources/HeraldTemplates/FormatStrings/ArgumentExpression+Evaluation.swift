import APNSCore
import HeraldCore

/// The values argument expressions read while one notification is rendered, and the language
/// they are formatted for.
struct ArgumentContext {
    let recipient: Recipient
    let variables: [String: PayloadValue]
    let formatting: TextFormatting

    var language: LanguageTag { formatting.language }
}

extension ArgumentExpression {
    /// The text of the first term that has a value (formatted by the expression's format, if
    /// any, for `language`), or nil when none has.
    public func evaluate(for recipient: Recipient, variables: [String: PayloadValue], language: LanguageTag) -> String? {
        evaluate(in: ArgumentContext(recipient: recipient, variables: variables, formatting: TextFormatting(language: language)))
    }

    func evaluate(in context: ArgumentContext) -> String? {
        evaluate(for: context.recipient, variables: context.variables, formatting: context.formatting)
    }

    /// The same with the parts passed one by one (borrowed: the campaign renderer's loop makes
    /// no context per device).
    func evaluate(for recipient: Recipient, variables: [String: PayloadValue], formatting: TextFormatting) -> String? {
        for term in terms {
            guard let text = Self.text(of: term, recipient, variables, formatting) else { continue }
            guard let filter else { return text }
            if let formatted = filter.apply(to: text, locale: formatting.locale, timeZone: recipient.timeZone) {
                return formatted
            }
        }
        return nil
    }

    private static func text(
        of term: Term, _ recipient: Recipient, _ variables: [String: PayloadValue], _ formatting: TextFormatting
    ) -> String? {
        switch term {
        case .attribute(let name):
            return recipient.attributes[name].flatMap(text(of:))
        case .variable(let name):
            return variables[name].flatMap(text(of:))
        case .userID:
            guard let userID = recipient.userID, !userID.isEmpty else { return nil }
            return userID
        case .deviceLanguage:
            return formatting.language.value
        case .literal(let text):
            return text
        }
    }

    /// A value as argument text: strings as they are, integers without decimals (also a double
    /// with an integral value), other doubles in their shortest form, `true`/`false`. Null,
    /// empty text, arrays and objects have no text, so a fallback applies.
    public static func text(of value: PayloadValue) -> String? {
        switch value {
        case .string(let text):
            return text.isEmpty ? nil : text
        case .int(let number):
            return String(number)
        case .double(let number):
            guard number.isFinite else { return nil }
            if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
            return number.description
        case .bool(let flag):
            return flag ? "true" : "false"
        case .null, .array, .object:
            return nil
        }
    }
}
