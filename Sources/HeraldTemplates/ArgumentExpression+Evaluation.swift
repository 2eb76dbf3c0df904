import APNSCore
import HeraldCore

/// The values argument expressions read while one notification is rendered.
struct ArgumentContext {
    let recipient: Recipient
    let variables: [String: PayloadValue]
    let language: LanguageTag
}

extension ArgumentExpression {
    /// The text of the first term that has a value, or nil when none has.
    public func evaluate(for recipient: Recipient, variables: [String: PayloadValue], language: LanguageTag) -> String? {
        evaluate(in: ArgumentContext(recipient: recipient, variables: variables, language: language))
    }

    func evaluate(in context: ArgumentContext) -> String? {
        for term in terms {
            switch term {
            case .attribute(let name):
                if let value = context.recipient.attributes[name], let text = Self.text(of: value) { return text }
            case .variable(let name):
                if let value = context.variables[name], let text = Self.text(of: value) { return text }
            case .userID:
                if let userID = context.recipient.userID, !userID.isEmpty { return userID }
            case .deviceLanguage:
                return context.language.value
            case .literal(let text):
                return text
            }
        }
        return nil
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
