import Foundation

/// How an argument's value is formatted for the reader, written after the expression:
///
///     vars.total | currency(EUR)      1.234,50 € in German, €1,234.50 in English
///     vars.share | percent            25 % in French
///     vars.points | number            1 234 567 in Russian
///     vars.endsAt | date(medium)      1 déc. 2026, in the device's time zone
///     vars.endsAt | time(short)       17:00
///     vars.endsAt | datetime(short)   1.12.2026, 17:00
///
/// Numbers are read from the value's text (`1234.5`, `-3`); dates from ISO 8601 text
/// (`2026-12-01T16:00:00Z`, with or without fractional seconds, or a date alone) or a number of
/// seconds since 1970. A value that cannot be read so counts as missing, and the next `??` term
/// is tried. The device's time zone is its registered `timeZone`, UTC when it has none.
public enum ArgumentFilter: Sendable, Equatable, CustomStringConvertible {
    /// Length of a date or time, as Foundation's `Date.FormatStyle` names them.
    public enum Length: String, Sendable, Equatable, CaseIterable {
        case short, medium, long, full
    }

    /// `number` or `number(N)`: grouping per locale, at most 3 fraction digits or exactly N.
    case number(fractionDigits: Int?)
    /// `percent` or `percent(N)`: 0.25 is 25 %.
    case percent(fractionDigits: Int?)
    /// `currency(EUR)`: an ISO 4217 code; the locale places the symbol.
    case currency(String)
    /// `date(short|medium|long|full)`.
    case date(Length)
    /// `time(short|medium)`.
    case time(Length)
    /// `datetime(short|medium|long)`: date and time.
    case dateTime(Length)

    public var description: String {
        switch self {
        case .number(let digits): digits.map { "number(\($0))" } ?? "number"
        case .percent(let digits): digits.map { "percent(\($0))" } ?? "percent"
        case .currency(let code): "currency(\(code))"
        case .date(let length): "date(\(length.rawValue))"
        case .time(let length): "time(\(length.rawValue))"
        case .dateTime(let length): "datetime(\(length.rawValue))"
        }
    }

    /// True when the result depends on the device's time zone.
    var readsTimeZone: Bool {
        switch self {
        case .date, .time, .dateTime: true
        case .number, .percent, .currency: false
        }
    }

    /// Reads `name` and its parenthesized argument (nil when there are no parentheses).
    init(name: String, argument: String?) throws(ArgumentExpressionError) {
        func digits() throws(ArgumentExpressionError) -> Int? {
            guard let argument else { return nil }
            guard let value = Int(argument), (0...6).contains(value) else {
                throw ArgumentExpressionError("\(name)(\(argument)): the fraction digits are a number from 0 to 6")
            }
            return value
        }
        func length(_ allowed: [Length]) throws(ArgumentExpressionError) -> Length {
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            guard let argument, let length = Length(rawValue: argument), allowed.contains(length) else {
                throw ArgumentExpressionError("\(name)(…) takes one of \(names)")
            }
            return length
        }
        switch name {
        case "number":
            self = .number(fractionDigits: try digits())
        case "percent":
            self = .percent(fractionDigits: try digits())
        case "currency":
            guard let code = argument, code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
                throw ArgumentExpressionError("currency(…) takes an ISO 4217 code of three capital letters, such as currency(EUR)")
            }
            self = .currency(code)
        case "date":
            self = .date(try length(Length.allCases))
        case "time":
            self = .time(try length([.short, .medium]))
        case "datetime":
            self = .dateTime(try length([.short, .medium, .long]))
        default:
            throw ArgumentExpressionError(
                "unknown format \"\(name)\": expected number, percent, currency(XXX), date(…), time(…) or datetime(…)")
        }
    }

    /// The value's text formatted for `locale`, or nil when the text is not a number (or a
    /// date) as the filter needs.
    func apply(to text: String, locale: Locale, timeZone: String?) -> String? {
        switch self {
        case .number(let digits):
            guard let number = Self.decimal(text) else { return nil }
            let style = Decimal.FormatStyle(locale: locale)
            return digits.map { style.precision(.fractionLength($0)).format(number) }
                ?? style.precision(.fractionLength(0...3)).format(number)
        case .percent(let digits):
            guard let number = Self.decimal(text) else { return nil }
            let style = Decimal.FormatStyle.Percent(locale: locale)
            return digits.map { style.precision(.fractionLength($0)).format(number) } ?? style.format(number)
        case .currency(let code):
            guard let number = Self.decimal(text) else { return nil }
            return Decimal.FormatStyle.Currency(code: code, locale: locale).format(number)
        case .date(let length):
            return Self.date(text).map { Self.style(date: length, time: nil, locale, timeZone).format($0) }
        case .time(let length):
            return Self.date(text).map { Self.style(date: nil, time: length, locale, timeZone).format($0) }
        case .dateTime(let length):
            return Self.date(text).map { Self.style(date: length, time: length == .long ? .medium : length, locale, timeZone).format($0) }
        }
    }

    /// True when `text` is a value this filter can format (a literal checked by validation).
    func accepts(_ text: String) -> Bool {
        switch self {
        case .number, .percent, .currency: Self.decimal(text) != nil
        case .date, .time, .dateTime: Self.date(text) != nil
        }
    }

    /// A finite decimal number written in ASCII (`-1234.5`, `3e2`; not `0x10`, `nan` or `inf`).
    static func decimal(_ text: String) -> Decimal? {
        guard !text.isEmpty, text.utf8.count <= 40,
            text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 || $0 == 101 || $0 == 69 }),
            let double = Double(text), double.isFinite
        else { return nil }
        return Decimal(string: text, locale: posix) ?? Decimal(double)
    }

    /// ISO 8601 with a time and zone, with or without fractional seconds; a date alone
    /// (midnight UTC); or seconds since 1970 (between 1970 and 9999).
    static func date(_ text: String) -> Date? {
        if let seconds = Double(text) {
            guard seconds.isFinite, (0...253_402_300_799).contains(seconds) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        guard text.utf8.count <= 40 else { return nil }
        return (try? Date.ISO8601FormatStyle().parse(text))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().year().month().day().parse(text))
    }

    /// Made once: these run per device for arguments that read the device.
    private static let posix = Locale(identifier: "en_US_POSIX")
    private static let utc = TimeZone(identifier: "UTC")!

    private static func style(date: Length?, time: Length?, _ locale: Locale, _ timeZone: String?) -> Date.FormatStyle {
        let dateStyle: Date.FormatStyle.DateStyle =
            switch date {
            case nil: .omitted
            case .short: .numeric
            case .medium: .abbreviated
            case .long: .long
            case .full: .complete
            }
        let timeStyle: Date.FormatStyle.TimeStyle =
            switch time {
            case nil: .omitted
            case .short: .shortened
            case .medium, .long, .full: .standard
            }
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? utc
        return Date.FormatStyle(date: dateStyle, time: timeStyle, locale: locale, timeZone: zone)
    }
}
