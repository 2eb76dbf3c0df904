import Foundation

/// How one language writes the integers from -999 to 999, learnt from its formatter once: its
/// ten digits and the marks before a negative number. Most numbers a template shows (items in a
/// cart, days left) are small, and asking ICU's formatter for each one cost about a microsecond
/// and an allocation per device in a campaign; writing them from the table gives the same text.
/// A language whose small numbers are more than digits after a sign (grouping below 1,000, a
/// mark after the number) has no table and keeps the formatter.
struct SmallIntegers: Sendable {
    /// The language's digits 0 to 9, one Unicode scalar each.
    private let digits: [Unicode.Scalar]
    /// What comes before a negative number's digits: `-`, `−` (U+2212), or with a direction mark.
    private let minus: String.UnicodeScalarView
    /// The digits are ASCII and the sign is `-`: `String(n)` writes the same.
    private let isPlain: Bool

    /// The numbers checked against the formatter before the table is trusted.
    static let samples = [0, 7, 10, 42, 100, 123, 999, -1, -10, -100, -123, -999]

    init?(_ style: IntegerFormatStyle<Int>) {
        var digits = [Unicode.Scalar]()
        for digit in 0...9 {
            let scalars = style.format(digit).unicodeScalars
            guard scalars.count == 1, let scalar = scalars.first else { return nil }
            digits.append(scalar)
        }
        let negative = Array(style.format(-999).unicodeScalars)
        guard negative.count > 3, negative.suffix(3).allSatisfy({ $0 == digits[9] }) else { return nil }
        var minus = String.UnicodeScalarView()
        minus.append(contentsOf: negative.dropLast(3))
        self.digits = digits
        self.minus = minus
        self.isPlain = digits == Array("0123456789".unicodeScalars) && String(minus) == "-"
        for sample in Self.samples where self.format(sample) != style.format(sample) { return nil }
    }

    /// `number`'s text, or nil when it lies outside -999…999.
    func format(_ number: Int) -> String? {
        guard number > -1000, number < 1000 else { return nil }
        if isPlain { return String(number) }
        var text = String.UnicodeScalarView()
        if number < 0 { text.append(contentsOf: minus) }
        let magnitude = number.magnitude
        if magnitude >= 100 { text.append(digits[Int(magnitude / 100)]) }
        if magnitude >= 10 { text.append(digits[Int(magnitude / 10 % 10)]) }
        text.append(digits[Int(magnitude % 10)])
        return String(text)
    }
}
