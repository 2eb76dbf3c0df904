import HeraldCore
import Synchronization

/// A CLDR plural category: which form of a counted phrase a language uses for a number.
public enum PluralCategory: String, CaseIterable, Sendable, Hashable {
    case zero, one, two, few, many, other

    /// The index in `allCases`.
    var position: Int {
        switch self {
        case .zero: 0
        case .one: 1
        case .two: 2
        case .few: 3
        case .many: 4
        case .other: 5
        }
    }
}

/// The operands CLDR's plural rules read from a number as it is written ("1.50" is not "1.5"):
/// https://unicode.org/reports/tr35/tr35-numbers.html#Operands
public struct PluralOperands: Sendable, Equatable {
    /// The absolute value.
    public var n: Double
    /// The integer digits.
    public var i: Int
    /// How many fraction digits are written, and the same without trailing zeros.
    public var v: Int
    public var w: Int
    /// The written fraction digits as a number, and the same without trailing zeros.
    public var f: Int
    public var t: Int
    /// The exponent of a compact number (`1.2c6` is 1,200,000 with `e` = 6).
    public var e: Int

    public init(_ value: Int) {
        let magnitude = value.magnitude > UInt(Int.max) ? Int.max : Int(value.magnitude)
        self.init(n: Double(magnitude), i: magnitude, v: 0, w: 0, f: 0, t: 0, e: 0)
    }

    init(n: Double, i: Int, v: Int, w: Int, f: Int, t: Int, e: Int) {
        self.n = n
        self.i = i
        self.v = v
        self.w = w
        self.f = f
        self.t = t
        self.e = e
    }

    /// A decimal as written: `3`, `-1.50`, and CLDR's compact `1.1c6` (or `1.1e6`). Nil for
    /// anything else, or more than 18 digits.
    public init?(_ text: String) {
        // Most counts are plain integers: no need to take the text apart.
        if text.utf8.count <= 18, let integer = Int(text) {
            self.init(integer)
            return
        }
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        var exponent = 0
        if let marker = body.firstIndex(where: { $0 == "c" || $0 == "e" }) {
            guard let parsed = Int(body[body.index(after: marker)...]), (0...15).contains(parsed) else { return nil }
            exponent = parsed
            body = body[..<marker]
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var integer = String(parts[0])
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        guard !integer.isEmpty, (integer + fraction).allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty else {
            return nil
        }
        // A compact exponent moves the point right; the digits it passes become integer digits.
        let moved = min(exponent, fraction.count)
        integer += fraction.prefix(moved) + String(repeating: "0", count: exponent - moved)
        fraction.removeFirst(moved)
        guard integer.count + fraction.count <= 18, let i = Int(integer) else { return nil }
        let trimmed = String(fraction.reversed().drop(while: { $0 == "0" }).reversed())
        self.init(
            n: Double("\(i).\(fraction.isEmpty ? "0" : fraction)") ?? Double(i), i: i, v: fraction.count, w: trimmed.count,
            f: Int(fraction) ?? 0, t: Int(trimmed) ?? 0, e: exponent)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// CLDR's cardinal plural rules for every language in its data (``cldrVersion``), parsed once
/// from the generated table `PluralRules+CLDR.swift`.
public enum PluralRules {
    /// The category `language` uses for `operands`: its exact tag's rules (`pt-PT`) if CLDR has
    /// them, else its primary language's (`pt`); `other` for a language CLDR does not know.
    public static func category(for language: LanguageTag, _ operands: PluralOperands) -> PluralCategory {
        ruleSet(for: language).category(for: operands)
    }

    /// The categories `language` distinguishes, `other` last.
    public static func categories(for language: LanguageTag) -> [PluralCategory] {
        ruleSet(for: language).categories
    }

    /// The rules `language` uses, resolved once per tag and kept (a compiled template holds
    /// one per language; tags are few).
    public static func ruleSet(for language: LanguageTag) -> PluralRuleSet {
        if let known = ruleSets.withLock({ $0[language.value] }) { return known }
        let made = PluralRuleSet(rules: rules(for: language) ?? [])
        ruleSets.withLock { sets in
            if sets.count < 1024 { sets[language.value] = made }
        }
        return made
    }

    private static let ruleSets = Mutex<[String: PluralRuleSet]>([:])

    static func rules(for language: LanguageTag) -> [(category: PluralCategory, condition: PluralCondition)]? {
        table[language.value] ?? table[language.language]
    }

    /// Language tag → its rules in CLDR's order.
    static let table: [String: [(category: PluralCategory, condition: PluralCondition)]] = {
        var table = [String: [(category: PluralCategory, condition: PluralCondition)]]()
        for line in cardinalSource.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 2)
            // The generator writes only well-formed lines; a broken one is a bug caught by the tests.
            guard fields.count == 3, let category = PluralCategory(rawValue: String(fields[1])),
                let condition = PluralCondition(String(fields[2]))
            else { preconditionFailure("PluralRules+CLDR.swift: malformed line \(line)") }
            table[String(fields[0]), default: []].append((category, condition))
        }
        return table
    }()
}

/// One language's plural rules, looked up once: what rendering asks per argument.
public struct PluralRuleSet: Sendable {
    let rules: [(category: PluralCategory, condition: PluralCondition)]
    /// The categories of 0 through ``smallLimit`` - 1, worked out once: most counts are small.
    private let small: [PluralCategory]
    static let smallLimit = 1000

    init(rules: [(category: PluralCategory, condition: PluralCondition)]) {
        self.rules = rules
        var small = [PluralCategory]()
        small.reserveCapacity(Self.smallLimit)
        for value in 0..<Self.smallLimit {
            small.append(Self.category(for: PluralOperands(value), in: rules))
        }
        self.small = small
    }

    /// The category of a whole number written without a fraction.
    func category(of integer: Int) -> PluralCategory {
        if integer >= 0, integer < Self.smallLimit { return small[integer] }
        return category(for: PluralOperands(integer))
    }

    /// The category of `operands`: the first rule that matches, else `other`.
    public func category(for operands: PluralOperands) -> PluralCategory {
        Self.category(for: operands, in: rules)
    }

    private static func category(
        for operands: PluralOperands, in rules: [(category: PluralCategory, condition: PluralCondition)]
    ) -> PluralCategory {
        for (category, condition) in rules where condition.matches(operands) { return category }
        return .other
    }

    /// The categories the language distinguishes, `other` last.
    public var categories: [PluralCategory] { rules.map(\.category) + [.other] }
}
