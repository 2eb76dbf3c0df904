import Foundation

/// The one way Herald writes JSON of its own (API responses, problems, stored documents, audit
/// details, webhook bodies, the CLI's and console's JSON): keys sorted, so equal values give
/// equal bytes; slashes left as they are; times as RFC 3339 in UTC with milliseconds, which
/// matter (APNs's 410 timestamp is compared with a registration's time). Non-finite numbers,
/// which JSON cannot hold and validation refuses, are written as strings rather than fail.
///
/// ``decoder`` reads what this writes, and RFC 3339 times with or without fractional seconds.
public enum CanonicalJSON {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(millisecondStyle))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = RFC3339.parse(try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time")
            }
            return date
        }
        return decoder
    }

    public static func data(_ value: some Encodable, pretty: Bool = false) throws -> Data {
        pretty ? try prettyEncoder.encode(value) : Data(try CompactJSONEncoder().encode(value))
    }

    public static func text(_ value: some Encodable, pretty: Bool = false) throws -> String {
        String(decoding: try data(value, pretty: pretty), as: UTF8.self)
    }

    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try decoder.decode(type, from: Data(text.utf8))
    }

    /// Configured once and shared: an encoder is safe to use from several threads.
    private static let prettyEncoder = encoder(pretty: true)
    static let millisecondStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
