import APNSCore
import Foundation

extension JourneyDefinition.EventMatch {
    /// Whether an event of `name` with `properties` is this one: the name is equal and every
    /// condition holds on the properties, read as the segment language reads a device's
    /// attributes in SQL (docs/segments.md), with SQL's three values: a comparison with a
    /// missing property, or one of another type, is unknown, `not` of unknown stays unknown,
    /// and only a condition known true matches.
    public func matches(name: String, properties: [String: PayloadValue]) -> Bool {
        self.name == name && conditions.allSatisfy { Self.truth($0, on: properties) == true }
    }

    static func truth(_ condition: Segment, on properties: [String: PayloadValue]) -> Bool? {
        switch condition {
        case .all(let items):
            let values = items.map { truth($0, on: properties) }
            return values.contains(false) ? false : (values.contains(nil) ? nil : true)
        case .any(let items):
            let values = items.map { truth($0, on: properties) }
            return values.contains(true) ? true : (values.contains(nil) ? nil : false)
        case .not(let inner): return truth(inner, on: properties).map(!)
        case .attribute(let key, let test): return truth(test, on: properties[key])
        default: return false
        }
    }

    static func truth(_ test: Segment.AttributeTest, on value: PayloadValue?) -> Bool? {
        switch test {
        case .exists(let wanted): return (value != nil) == wanted
        case .equals(let expected): return value.map { contains($0, expected) } ?? false
        case .notEquals(let expected): return value.map { !contains($0, expected) }
        case .oneOf(let values): return value.map { given in values.contains { contains(given, $0) } } ?? false
        case .contains(let part):
            guard case .string(let text)? = value else { return nil }
            return part.isEmpty || text.contains(part)
        case .startsWith(let prefix):
            guard case .string(let text)? = value else { return nil }
            return text.hasPrefix(prefix)
        case .compare(let comparison, .number(let bound)):
            guard let value, value.isNumber, let number = value.number else { return nil }
            return compare(number, comparison, bound)
        case .compare(let comparison, .date(let bound)):
            guard case .string(let text)? = value else { return nil }
            guard let date = RFC3339.parse(text) else { return nil }
            return compare(date.timeIntervalSince1970, comparison, bound.timeIntervalSince1970)
        }
    }

    /// jsonb's `@>` below the top level: objects hold the other's members, arrays each of the
    /// other's elements, and scalars are equal (2 and 2.0 the same number).
    static func contains(_ a: PayloadValue, _ b: PayloadValue) -> Bool {
        if a.isNumber, b.isNumber { return a.number == b.number }
        switch (a, b) {
        case (.array(let xs), .array(let ys)): return ys.allSatisfy { y in xs.contains { contains($0, y) } }
        case (.object(let xs), .object(let ys)):
            return ys.allSatisfy { key, value in xs[key].map { contains($0, value) } ?? false }
        default: return a == b
        }
    }

    private static func compare(_ value: Double, _ comparison: Segment.Comparison, _ bound: Double) -> Bool {
        switch comparison {
        case .lt: value < bound
        case .lte: value <= bound
        case .gt: value > bound
        case .gte: value >= bound
        }
    }
}

extension PayloadValue {
    fileprivate var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }
}
