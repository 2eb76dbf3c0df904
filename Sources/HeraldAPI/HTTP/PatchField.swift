/// A member of a PATCH body: left out (no change), `null` (cleared) or a value.
enum PatchField<Value: Decodable>: Decodable {
    case absent
    case null
    case value(Value)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .null : .value(try container.decode(Value.self))
    }

    var isGiven: Bool {
        if case .absent = self { false } else { true }
    }

    /// nil when left out, `.some(nil)` when cleared.
    var change: Value?? {
        switch self {
        case .absent: nil
        case .null: .some(nil)
        case .value(let value): .some(value)
        }
    }
}

extension KeyedDecodingContainer {
    /// A left-out member is ``PatchField/absent``, not a missing required one (what a
    /// synthesized `init(from:)` calls for a `PatchField` property).
    func decode<Value>(_ type: PatchField<Value>.Type, forKey key: Key) throws -> PatchField<Value> {
        guard contains(key) else { return .absent }
        return try decodeNil(forKey: key) ? .null : .value(try decode(Value.self, forKey: key))
    }
}
