/// The few JSON strings the simulator writes by hand: error bodies, GOAWAY data, record lines.
enum SimulatorJSON {
    /// Appends `value` as a JSON string literal (RFC 8259 §7), quotes included.
    static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `"name":` to an object being written.
    static func appendKey(_ name: String, to out: inout [UInt8]) {
        appendString(name, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// `{"reason":"..."}`, plus `"timestamp":<ms>` when given (docs/apns.md "Responses").
    static func errorBody(reason: String, timestampMilliseconds: Int64? = nil) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(64)
        out.append(UInt8(ascii: "{"))
        appendKey("reason", to: &out)
        appendString(reason, to: &out)
        if let timestampMilliseconds {
            out.append(UInt8(ascii: ","))
            appendKey("timestamp", to: &out)
            out.append(contentsOf: Array(String(timestampMilliseconds).utf8))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
