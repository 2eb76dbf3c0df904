/// One CLDR plural rule condition, parsed: `or` of `and`s of relations such as
/// `n % 10 = 2..4,9` or `v != 0` (https://unicode.org/reports/tr35/tr35-numbers.html#Plural_rules_syntax).
struct PluralCondition: Sendable {
    enum Operand: Character, Sendable {
        case n = "n"
        case i = "i"
        case v = "v"
        case w = "w"
        case f = "f"
        case t = "t"
        case c = "c"
        case e = "e"
    }

    struct Relation: Sendable {
        var operand: Operand
        var modulus: Int?
        var negated: Bool
        /// Values and inclusive ranges of integers.
        var ranges: [ClosedRange<Int>]
    }

    /// Any of these groups, each of which holds when all its relations do.
    var groups: [[Relation]]

    init?(_ text: String) {
        var groups = [[Relation]]()
        for group in text.split(separator: " or ", omittingEmptySubsequences: false).map({ $0.split(separator: " and ") }) {
            var relations = [Relation]()
            for relation in group {
                guard let parsed = Self.relation(relation) else { return nil }
                relations.append(parsed)
            }
            guard !relations.isEmpty else { return nil }
            groups.append(relations)
        }
        self.groups = groups
    }

    /// `n % 100 != 11..14` as tokens: operand, optional `% m`, `=` or `!=`, range list.
    private static func relation(_ text: Substring) -> Relation? {
        let tokens = text.split(separator: " ")
        guard tokens.count == 3 || tokens.count == 5, tokens[0].count == 1, let operand = Operand(rawValue: tokens[0].first!)
        else { return nil }
        var modulus: Int?
        if tokens.count == 5 {
            guard tokens[1] == "%", let m = Int(tokens[2]), m > 0 else { return nil }
            modulus = m
        }
        let comparison = tokens[tokens.count - 2]
        guard comparison == "=" || comparison == "!=" else { return nil }
        var ranges = [ClosedRange<Int>]()
        for item in tokens[tokens.count - 1].split(separator: ",") {
            let bounds = item.split(separator: ".", omittingEmptySubsequences: true)
            if bounds.count == 1, let value = Int(bounds[0]) {
                ranges.append(value...value)
            } else if bounds.count == 2, item.contains(".."), let low = Int(bounds[0]), let high = Int(bounds[1]), low <= high {
                ranges.append(low...high)
            } else {
                return nil
            }
        }
        guard !ranges.isEmpty else { return nil }
        return Relation(operand: operand, modulus: modulus, negated: comparison == "!=", ranges: ranges)
    }

    func matches(_ operands: PluralOperands) -> Bool {
        groups.contains { group in group.allSatisfy { Self.holds($0, operands) } }
    }

    /// A range list holds integers only: `n = 1..4` is false for 1.5, and `n != 1..4` true.
    private static func holds(_ relation: Relation, _ operands: PluralOperands) -> Bool {
        var value: Double
        switch relation.operand {
        case .n: value = operands.n
        case .i: value = Double(operands.i)
        case .v: value = Double(operands.v)
        case .w: value = Double(operands.w)
        case .f: value = Double(operands.f)
        case .t: value = Double(operands.t)
        case .c, .e: value = Double(operands.e)
        }
        if let modulus = relation.modulus {
            value = value.truncatingRemainder(dividingBy: Double(modulus))
        }
        let inList =
            value == value.rounded(.towardZero)
            && relation.ranges.contains { range in
                Double(range.lowerBound) <= value && value <= Double(range.upperBound)
            }
        return inList != relation.negated
    }
}
