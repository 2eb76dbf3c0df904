/// A compact JSON writer appending UTF-8 bytes to one buffer.
///
/// Payload encoding is the hot path of every campaign, so this writes straight into a byte
/// array: no `JSONEncoder`, no intermediate Strings except for the rare `Double`. Text follows
/// docs/apns.md "Payloads": non-ASCII is written as raw UTF-8, never `\u` escapes, and
/// `/` is not escaped; only `"`, `\` and control characters below 0x20 are.
public struct JSONWriter {
    var bytes: [UInt8]

    init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")) }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")) }
    mutating func beginArray() { bytes.append(UInt8(ascii: "[")) }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

    /// Writes a comma unless a container was just opened. Every value ends in `"`, `}`, `]`,
    /// a digit or a letter, never in `{` or `[`, so the last byte tells.
    mutating func separator() {
        if let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "[") {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// Starts an object member whose key is a literal already quoted and followed by `:`,
    /// e.g. `"\"thread-id\":"`: fixed keys cost one copy, no escaping.
    mutating func member(_ quotedKeyAndColon: StaticString) {
        separator()
        raw(quotedKeyAndColon)
    }

    /// Appends ASCII text as is.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Starts an object member with a key that may need escaping.
    mutating func member(key: String) {
        separator()
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) {
        if value {
            raw("true")
        } else {
            raw("false")
        }
    }

    /// Decimal digits, written backwards then reversed in place: no String allocation.
    mutating func int(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Shortest round-trip form (`0.5`, `1.0`, `1e-07`), all valid JSON. JSON has no NaN or
    /// infinity: those are written as `null` here, and validation refuses them before sending.
    mutating func double(_ value: Double) {
        guard value.isFinite else {
            null()
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in appendEscaped(utf8) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` escaped as the inside of a JSON string, without the quotes: what
    /// ``string(_:)`` writes between them. Templates splice per-device text into payload bytes
    /// encoded once with this.
    public static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        var writer = JSONWriter()
        swap(&writer.bytes, &bytes)
        var value = value
        value.withUTF8 { utf8 in writer.appendEscaped(utf8) }
        swap(&writer.bytes, &bytes)
    }

    mutating func stringArray(_ values: [String]) {
        beginArray()
        for value in values {
            separator()
            string(value)
        }
        endArray()
    }

    /// Any custom value; object keys sorted so equal values give equal bytes.
    mutating func value(_ value: PayloadValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let number): int(number)
        case .double(let number): double(number)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements {
                separator()
                self.value(element)
            }
            endArray()
        case .object(let members):
            beginObject()
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                self.member(key: key)
                self.value(member)
            }
            endObject()
        }
    }

    /// Copies runs of bytes that need no escaping in one go; escapes the rest.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            appendEscape(for: byte)
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
