import APNSCore

/// Shortens server-rendered text until the encoded payload fits its push type's limit
/// (docs/rules.md rule 5): the body first (the title when there is no body), cut at a grapheme
/// cluster boundary (a Swift `Character`, so an emoji sequence is never split) with "…"
/// appended, measured in bytes of the encoded JSON, escapes included.
public enum PayloadFitting {
    /// A payload that fits, with its bytes.
    public struct Fitted: Sendable, Equatable {
        public var payload: Payload
        public var encoded: [UInt8]
        /// True when text was cut.
        public var shortened: Bool
    }

    /// Appended where text was cut.
    public static let ellipsis = "…"

    /// `payload` as it is when it fits in `limit` bytes, else with the body (then the title)
    /// shortened as little as possible; nil when even "…" alone does not fit.
    public static func fit(_ payload: Payload, limit: Int) -> Fitted? {
        let encoded = payload.encoded()
        if encoded.count <= limit { return Fitted(payload: payload, encoded: encoded, shortened: false) }
        var current = payload
        for field in [Field.body, .title] {
            guard let text = field.text(in: current), !text.isEmpty else { continue }
            if let fitted = shorten(field, of: current, text: text, limit: limit) { return fitted }
            // Even "…" alone is too long: keep the field at its shortest and cut the next one.
            current = field.setting(ellipsis, in: current)
        }
        return nil
    }

    /// The longest prefix of `text` (in whole characters) that fits with "…" after it. The
    /// encoded size grows with the prefix, so a binary search needs log2(n) encodings.
    private static func shorten(_ field: Field, of payload: Payload, text: String, limit: Int) -> Fitted? {
        let boundaries = Array(text.indices)
        var low = 0
        var high = boundaries.count - 1
        var best: Fitted?
        while low <= high {
            let middle = low + (high - low) / 2
            let candidate = field.setting(String(text[..<boundaries[middle]]) + ellipsis, in: payload)
            let encoded = candidate.encoded()
            if encoded.count <= limit {
                best = Fitted(payload: candidate, encoded: encoded, shortened: true)
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }

    /// The alert text that may be shortened.
    enum Field {
        case body, title

        func text(in payload: Payload) -> String? {
            switch (self, payload.aps.alert) {
            case (.body, .body(let body)?): body
            case (.body, .fields(let alert)?): alert.body
            case (.title, .fields(let alert)?): alert.title
            default: nil
            }
        }

        func setting(_ text: String, in payload: Payload) -> Payload {
            var payload = payload
            switch (self, payload.aps.alert) {
            case (.body, .body?):
                payload.aps.alert = .body(text)
            case (.body, .fields(var alert)?):
                alert.body = text
                payload.aps.alert = .fields(alert)
            case (.title, .fields(var alert)?):
                alert.title = text
                payload.aps.alert = .fields(alert)
            default:
                break
            }
            return payload
        }
    }
}
