import APNSCore

/// What a JSON value must be for Herald to store it and read it back (device attributes,
/// campaign variables, custom payload keys): text that `TextRules` allows, and nesting no
/// deeper than ``maximumDepth``. A value stored deeper would be refused when read back (and the
/// device list that holds it with it), so it is refused on the way in.
public enum StoredValueRules {
    /// An object or array counts one level, a scalar none: `{"a": {"b": 1}}` is 2 deep.
    public static let maximumDepth = 32

    /// The first problem of `value`, named at its path below `field`; nil when it may be stored.
    public static func problem(in value: PayloadValue, field: String) -> ValidationError? {
        if let (path, scalar) = TextRules.firstForbidden(in: value, at: field) {
            return ValidationError(field: path, reason: TextRules.reason(scalar))
        }
        guard depth(of: value, limit: maximumDepth) > maximumDepth else { return nil }
        var trail = [JSONStep]()
        locateTooDeep(value, remaining: maximumDepth, &trail)
        return ValidationError(
            field: JSONStep.path(trail.reversed(), under: field),
            reason: "nests deeper than \(maximumDepth) levels of objects and arrays")
    }

    /// The depth of `value`, counted no further than one past `limit`.
    static func depth(of value: PayloadValue, limit: Int) -> Int {
        guard limit >= 0 else { return 1 }
        switch value {
        case .array(let items):
            return 1 + (items.lazy.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        case .object(let members):
            return 1 + (members.values.lazy.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        default:
            return 0
        }
    }

    /// Appends, innermost first, the steps to the first container (keys in sorted order) that
    /// goes past the limit.
    private static func locateTooDeep(_ value: PayloadValue, remaining: Int, _ trail: inout [JSONStep]) {
        guard remaining > 0 else { return }
        switch value {
        case .array(let items):
            for (index, item) in items.enumerated() where depth(of: item, limit: remaining - 1) > remaining - 1 {
                locateTooDeep(item, remaining: remaining - 1, &trail)
                trail.append(.index(index))
                return
            }
        case .object(let members):
            for key in members.keys.sorted() where depth(of: members[key]!, limit: remaining - 1) > remaining - 1 {
                locateTooDeep(members[key]!, remaining: remaining - 1, &trail)
                trail.append(.key(key))
                return
            }
        default:
            return
        }
    }
}
