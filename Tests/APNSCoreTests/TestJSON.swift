import Foundation

/// Any JSON value as Foundation's decoder reads it, to check the hand-written encoder's
/// output independently of the encoder.
enum TestJSON: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([TestJSON])
    case object([String: TestJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([TestJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: TestJSON].self))
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> TestJSON {
        try JSONDecoder().decode(TestJSON.self, from: Data(bytes))
    }
}

/// Base64url through Foundation, independent of APNSCore's own codec.
enum TestBase64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { Array($0) }
    }

    static func decodeString(_ text: some StringProtocol) -> String? {
        decode(text).map { String(decoding: $0, as: UTF8.self) }
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A device token for tests.
let testTokenHex = "00112233445566778899aabbccddeeff"
