import Foundation

/// ``CanonicalJSON``'s compact form written straight into bytes: the same output as its
/// `JSONEncoder` (keys sorted, slashes as they are, times as RFC 3339 with milliseconds,
/// non-finite numbers as strings, doubles in their shortest form without a trailing `.0`), built
/// through a small tree of its own instead of Foundation's generic containers. API answers go
/// this way (BENCHMARKS.md, "Where a registration's time goes"); a test holds it to the same
/// bytes as the `JSONEncoder` for every kind of value.
public struct CompactJSONEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = Node()
        try Self.encode(value, into: root, codingPath: [])
        var bytes = [UInt8]()
        bytes.reserveCapacity(256)
        root.write(into: &bytes)
        return bytes
    }

    static func encode(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date:
            node.scalar = .string(date.formatted(CanonicalJSON.millisecondStyle))
        case let data as Data:
            node.scalar = .string(data.base64EncodedString())
        case let url as URL:
            node.scalar = .string(url.absoluteString)
        case let decimal as Decimal:
            node.scalar = .number(decimal.description)
        default:
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
    }

    /// One value being built: an object, an array or a scalar, filled in by containers.
    final class Node {
        enum Scalar {
            case null
            case bool(Bool)
            case number(String)
            case string(String)
        }

        var members: [String: Node]?
        var elements: [Node]?
        var scalar: Scalar?

        func write(into bytes: inout [UInt8]) {
            if let members {
                bytes.append(UInt8(ascii: "{"))
                var first = true
                for key in members.keys.sorted() {
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    Self.writeString(key, into: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    members[key]!.write(into: &bytes)
                }
                bytes.append(UInt8(ascii: "}"))
            } else if let elements {
                bytes.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    element.write(into: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            } else {
                switch scalar ?? .null {
                case .null: bytes.append(contentsOf: "null".utf8)
                case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
                case .number(let text): bytes.append(contentsOf: text.utf8)
                case .string(let text): Self.writeString(text, into: &bytes)
                }
            }
        }

        static func writeString(_ text: String, into bytes: inout [UInt8]) {
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                case 0x00..<0x20:
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(hexDigit(byte >> 4))
                    bytes.append(hexDigit(byte & 0x0F))
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }

    static func number(_ value: some BinaryFloatingPoint & CustomStringConvertible) -> Node.Scalar {
        guard value.isFinite else {
            return .string(value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }
}

/// The `Encoder` the types' `encode(to:)` write through.
private struct NodeEncoder: Encoder {
    let node: CompactJSONEncoder.Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: CompactJSONEncoder.Node
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> CompactJSONEncoder.Node {
        let child = CompactJSONEncoder.Node()
        node.members![key.stringValue] = child
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).scalar = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).scalar = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key).scalar = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { child(key).scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { child(key).scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).scalar = .number(String(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).scalar = .number(String(value)) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try CompactJSONEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = child(key)
        nested.members = [:]
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = child(key)
        nested.elements = []
        return UnkeyedContainer(node: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: child(Key(stringValue: "super")!), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: child(key), codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: CompactJSONEncoder.Node
    let codingPath: [any CodingKey]
    var count: Int { node.elements!.count }

    private func next() -> CompactJSONEncoder.Node {
        let child = CompactJSONEncoder.Node()
        node.elements!.append(child)
        return child
    }

    mutating func encodeNil() throws { next().scalar = .null }
    mutating func encode(_ value: Bool) throws { next().scalar = .bool(value) }
    mutating func encode(_ value: String) throws { next().scalar = .string(value) }
    mutating func encode(_ value: Double) throws { next().scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Float) throws { next().scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Int) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: Int8) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: Int16) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: Int32) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: Int64) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: UInt) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: UInt8) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: UInt16) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: UInt32) throws { next().scalar = .number(String(value)) }
    mutating func encode(_ value: UInt64) throws { next().scalar = .number(String(value)) }

    mutating func encode(_ value: some Encodable) throws {
        let index = count
        try CompactJSONEncoder.encode(value, into: next(), codingPath: codingPath + [IndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        let nested = next()
        nested.members = [:]
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [IndexKey(index)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        let nested = next()
        nested.elements = []
        return UnkeyedContainer(node: nested, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: next(), codingPath: codingPath)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: CompactJSONEncoder.Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.scalar = .null }
    mutating func encode(_ value: Bool) throws { node.scalar = .bool(value) }
    mutating func encode(_ value: String) throws { node.scalar = .string(value) }
    mutating func encode(_ value: Double) throws { node.scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Float) throws { node.scalar = CompactJSONEncoder.number(value) }
    mutating func encode(_ value: Int) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: Int8) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: Int16) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: Int32) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: Int64) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: UInt) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: UInt8) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: UInt16) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: UInt32) throws { node.scalar = .number(String(value)) }
    mutating func encode(_ value: UInt64) throws { node.scalar = .number(String(value)) }

    mutating func encode(_ value: some Encodable) throws {
        try CompactJSONEncoder.encode(value, into: node, codingPath: codingPath)
    }
}
