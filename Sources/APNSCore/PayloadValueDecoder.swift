import Foundation

/// Decodes `Decodable` types straight from a parsed ``PayloadValue``, without a round trip
/// through JSON bytes, and strictly: an object key that the type does not read is refused, so a
/// misspelt field is never silently ignored. Keys are checked once the value is decoded, or,
/// when the type's `CodingKeys` are `CaseIterable`, before anything is read (then a misspelt
/// key is reported rather than the required field it was meant to be).
///
/// Errors are `DecodingError`s whose coding path names the field (``JSONPath/of(_:under:)``)
/// and whose description is one line saying what is expected: "must be a string", "must be one
/// of sandbox, production", "unknown field". A type's own `init(from:)` adds its own reasons
/// with ``DecodingError/invalid(_:in:)``.
public struct PayloadValueDecoder: Sendable {
    /// How a date is read from a string; nil means the string is not a date.
    public var parseDate: @Sendable (String) -> Date?
    /// What a date must look like, for the error.
    public var dateExpectation: String
    /// Numbers and booleans may be given as strings (`"25"`, `"true"`), as in a URL's query.
    public var readsScalarsFromStrings: Bool
    /// Whether a key the type does not read is an error (the default). Off only for a caller
    /// that reports unknown keys itself, all of them, beside the type errors (template files).
    public var refusesUnknownKeys = true

    public init(
        parseDate: @escaping @Sendable (String) -> Date? = { try? Date($0, strategy: .iso8601) },
        dateExpectation: String = "must be an RFC 3339 time such as 2026-12-01T09:00:00Z",
        readsScalarsFromStrings: Bool = false
    ) {
        self.parseDate = parseDate
        self.dateExpectation = dateExpectation
        self.readsScalarsFromStrings = readsScalarsFromStrings
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from value: PayloadValue) throws -> Value {
        try PayloadValueDecoding(value: value, codingPath: [], options: self).unbox(type)
    }
}

extension DecodingError {
    /// A value of the right JSON type that the decoding type refuses, with `reason` as the one
    /// line the caller reads ("must be sandbox or production").
    public static func invalid(_ reason: String, in decoder: any Decoder) -> DecodingError {
        .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: reason))
    }

    /// The field this error names (its coding path, with the missing key for a missing one)
    /// and the one line that says what is wrong, as ``PayloadValueDecoder`` words them.
    public var fieldAndReason: (field: String, reason: String) {
        switch self {
        case .keyNotFound(let key, let context):
            return (JSONPath.of(context.codingPath + [key]), "is required")
        case .valueNotFound(_, let context):
            return (JSONPath.of(context.codingPath), "is required")
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return (JSONPath.of(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "has the wrong type or an unknown value")
        }
    }
}

/// The `Decoder` for one value; it remembers which keys its keyed containers read, so the
/// caller can refuse the others once the value is decoded.
final class PayloadValueDecoding: Decoder {
    let value: PayloadValue
    let codingPath: [any CodingKey]
    let options: PayloadValueDecoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// Keys read through keyed containers; nil until one is opened.
    var readKeys: Set<String>?

    init(value: PayloadValue, codingPath: [any CodingKey], options: PayloadValueDecoder) {
        self.value = value
        self.codingPath = codingPath
        self.options = options
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: PayloadValue].self, .init(codingPath: codingPath, debugDescription: "must be a JSON object"))
        }
        if options.refusesUnknownKeys, let known = Self.keyNames(of: type) {
            // Keys that list themselves are checked before anything is read: a misspelt key is
            // then the error, not the missing field it was meant to be.
            for key in members.keys.sorted() where !known.contains(key) {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath + [PayloadCodingKey(key)], debugDescription: "unknown field"))
            }
        }
        if readKeys == nil { readKeys = [] }
        return KeyedDecodingContainer(PayloadKeyedContainer<Key>(decoder: self, members: members))
    }

    /// The names of a `CaseIterable` key type: all the keys its object may hold.
    static func keyNames<Key: CodingKey>(of type: Key.Type) -> Set<String>? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return names(of: iterable)
    }

    private static func names<Keys: CaseIterable>(of type: Keys.Type) -> Set<String> {
        Set(type.allCases.compactMap { ($0 as? any CodingKey)?.stringValue })
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw DecodingError.typeMismatch(
                [PayloadValue].self, .init(codingPath: codingPath, debugDescription: "must be an array"))
        }
        return PayloadUnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Decodes `type` from this decoder's value, then refuses any key of an object that the
    /// type's keyed containers did not read (in sorted order, the first one).
    func unbox<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if type == PayloadValue.self { return value as! Value }
        if type == Date.self { return try date() as! Value }
        let decoded: Value
        do {
            decoded = try Value(from: self)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == codingPath.count {
            // A RawRepresentable's own refusal ("Cannot initialize …") says nothing a caller can use.
            guard let names = Self.caseNames(of: type), case .string = value else { throw DecodingError.dataCorrupted(context) }
            let choices = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + names[names.count - 1]
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "must be \(choices)"))
        }
        if options.refusesUnknownKeys, let readKeys, case .object(let members) = value {
            for key in members.keys.sorted() where !readKeys.contains(key) {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath + [PayloadCodingKey(key)], debugDescription: "unknown field"))
            }
        }
        return decoded
    }

    /// The raw values of a `CaseIterable` string enumeration, for "must be one of …".
    static func caseNames<Value>(of type: Value.Type) -> [String]? {
        guard let enumeration = type as? any (CaseIterable & RawRepresentable).Type else { return nil }
        return names(enumeration)
    }

    private static func names<Enumeration: CaseIterable & RawRepresentable>(_ type: Enumeration.Type) -> [String]? {
        let names = type.allCases.compactMap { $0.rawValue as? String }
        return names.isEmpty ? nil : names
    }

    func child(_ value: PayloadValue, key: any CodingKey) -> PayloadValueDecoding {
        PayloadValueDecoding(value: value, codingPath: codingPath + [key], options: options)
    }

    func mismatch<Value>(_ type: Value.Type, _ expectation: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: expectation))
    }

    func date() throws -> Date {
        guard case .string(let text) = value, let date = options.parseDate(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: options.dateExpectation))
        }
        return date
    }

    func integer<Value: FixedWidthInteger>(_ type: Value.Type) throws -> Value {
        var given = value
        if options.readsScalarsFromStrings, case .string(let text) = value, let number = Int(text) { given = .int(number) }
        guard case .int(let number) = given else { throw mismatch(type, "must be an integer") }
        guard let exact = Value(exactly: number) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "must be an integer from \(Value.min) to \(Value.max)"))
        }
        return exact
    }
}

extension PayloadValueDecoding: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .string("true") where options.readsScalarsFromStrings: return true
        case .string("false") where options.readsScalarsFromStrings: return false
        default: throw mismatch(type, "must be true or false")
        }
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type, "must be a string") }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .string(let text) where options.readsScalarsFromStrings:
            guard let number = Double(text), number.isFinite else { throw mismatch(type, "must be a number") }
            return number
        default: throw mismatch(type, "must be a number")
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        // The same value again (a type that decodes itself through a single-value container).
        try PayloadValueDecoding(value: value, codingPath: codingPath, options: options).unbox(type)
    }
}

/// An object's members, read by key.
struct PayloadKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: PayloadValueDecoding
    let members: [String: PayloadValue]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        decoder.readKeys?.insert(key.stringValue)
        return members[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.readKeys?.insert(key.stringValue)
        guard let member = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
        }
        return member == .null
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try child(for: key).unbox(type)
    }

    /// A missing key and `null` are both "not given" (the synthesized `decodeIfPresent` would
    /// call `decodeNil` and then this).
    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        decoder.readKeys?.insert(key.stringValue)
        guard let member = members[key.stringValue], member != .null || type == PayloadValue.self else { return nil }
        return try decoder.child(member, key: key).unbox(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        // The nested object's keys are checked by whoever reads it; here, as a plain container,
        // they are left to the type.
        try child(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try child(for: PayloadCodingKey("super") as! Key) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(for: key) }

    private func child(for key: Key) throws -> PayloadValueDecoding {
        decoder.readKeys?.insert(key.stringValue)
        guard let member = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
        }
        if member == .null {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath + [key], debugDescription: "is required"))
        }
        return decoder.child(member, key: key)
    }
}

/// An array's items, read in order.
struct PayloadUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: PayloadValueDecoding
    let items: [PayloadValue]
    var currentIndex = 0

    init(decoder: PayloadValueDecoding, items: [PayloadValue]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endError(PayloadValue.self) }
        if items[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let item = try next(type)
        return try item.unbox(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next([String: PayloadValue].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([PayloadValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(PayloadValue.self) }

    private mutating func next<Value>(_ type: Value.Type) throws -> PayloadValueDecoding {
        guard !isAtEnd else { throw endError(type) }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], key: PayloadCodingKey(index: currentIndex))
    }

    private func endError<Value>(_ type: Value.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "has too few items"))
    }
}

/// A key of an object or a position in an array; positions read "Index n", as Foundation's
/// decoders name them and ``JSONPath`` expects.
public struct PayloadCodingKey: CodingKey, Sendable {
    public let stringValue: String
    public let intValue: Int?

    public init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    public init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    public init?(stringValue: String) { self.init(stringValue) }
    public init?(intValue: Int) { self.init(index: intValue) }
}
