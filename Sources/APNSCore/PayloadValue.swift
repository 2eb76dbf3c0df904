/// A JSON value for custom payload keys and Live Activity `content-state`.
///
/// docs/apns.md "Payloads": custom values are objects, arrays, strings, numbers and booleans.
/// Object keys are written sorted, so equal values always encode to the same bytes. Doubles
/// must be finite; validation refuses NaN and infinity.
public enum PayloadValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([PayloadValue])
    case object([String: PayloadValue])

    /// True for an object.
    public var isObject: Bool {
        if case .object = self { true } else { false }
    }

    /// True when every number inside is finite, i.e. the value can be written as JSON.
    public var isFinite: Bool {
        switch self {
        case .null, .bool, .int, .string: true
        case .double(let value): value.isFinite
        case .array(let values): values.allSatisfy(\.isFinite)
        case .object(let values): values.values.allSatisfy(\.isFinite)
        }
    }
}

extension PayloadValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PayloadValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension PayloadValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PayloadValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PayloadValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PayloadValue...) { self = .array(elements) }
}

extension PayloadValue: ExpressibleByDictionaryLiteral {
    /// A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, PayloadValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
