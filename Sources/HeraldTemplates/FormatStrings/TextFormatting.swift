import Foundation
import HeraldCore

/// How one language shows the values Herald puts into its text: integers and decimals in the
/// language's digits and grouping (`1.234,5` in German, `1 234,5` in French), the plural form a
/// number selects (CLDR's rules), and, for a right-to-left language, every argument wrapped in
/// Unicode isolates (U+2068 … U+2069) so a Latin name or a number cannot reorder the
/// punctuation around it. Made once per language of a compiled template, and shared by
/// reference: rendering passes it for every device, and a struct of locales and styles would
/// cost a handful of reference counts each time.
///
/// Numbers go through Foundation's `FormatStyle`s with the language's `Locale`, which is what an
/// app's `String(localized:)` and `String.localizedStringWithFormat` use on Apple platforms
/// (docs/templates.md says where Linux's ICU data differs).
public final class TextFormatting: Sendable {
    public let language: LanguageTag
    public let locale: Locale
    /// True for a right-to-left language: arguments are isolated.
    public let isolatesArguments: Bool
    let plurals: PluralRuleSet
    private let integerStyle: IntegerFormatStyle<Int>
    /// How the language writes -999…999, so small integers skip the formatter; nil when it
    /// writes them otherwise than digits after a sign.
    let smallIntegers: SmallIntegers?

    /// U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE.
    static let isolateStart = "\u{2068}"
    static let isolateEnd = "\u{2069}"

    public init(language: LanguageTag) {
        self.language = language
        let locale = Locale(identifier: language.value)
        self.locale = locale
        self.isolatesArguments = Locale.Language(identifier: language.value).characterDirection == .rightToLeft
        self.plurals = PluralRules.ruleSet(for: language)
        let style = IntegerFormatStyle<Int>(locale: locale)
        self.integerStyle = style
        self.smallIntegers = SmallIntegers(style)
    }

    /// `text` shown by `conversion`: a number in this language's digits and grouping; text that
    /// is not a number (or `%@`) as it is.
    public func convert(_ text: String, _ conversion: FormatString.Conversion) -> String {
        switch conversion {
        case .object:
            return text
        case .integer:
            guard let number = Self.integer(text) else { return text }
            if let text = smallIntegers?.format(number) { return text }
            return integerStyle.format(number)
        case .decimal(let precision):
            guard let number = Double(text), number.isFinite else { return text }
            return FloatingPointFormatStyle<Double>(locale: locale).precision(.fractionLength(precision)).format(number)
        }
    }

    /// Appends an argument's text, isolated in a right-to-left language.
    func appendArgument(_ text: String, to out: inout String) {
        if isolatesArguments {
            out.append(Self.isolateStart)
            out.append(text)
            out.append(Self.isolateEnd)
        } else {
            out.append(text)
        }
    }

    /// An integer as `%d` reads it: `42`, `-7`, or a decimal with nothing after the point.
    static func integer(_ text: String) -> Int? {
        if let number = Int(text) { return number }
        guard let number = Double(text), number.isFinite, number == number.rounded(), abs(number) < 9e15 else { return nil }
        return Int(number)
    }
}
