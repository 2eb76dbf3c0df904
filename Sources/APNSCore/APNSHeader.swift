/// One request header with the HPACK indexing it must be sent with.
///
/// docs/apns.md "Header compression": APNs keeps a small dynamic table, so values that are
/// unique per request or secret must stay out of it. APNSClient's HPACK encoder writes each
/// header with the representation its ``Indexing`` names (RFC 7541 §6.2).
public struct APNSHeader: Hashable, Sendable {
    /// How HPACK may store a header.
    public enum Indexing: Hashable, Sendable {
        /// Literal with incremental indexing: name and value enter the dynamic table.
        case incremental
        /// Literal without indexing: the table is left alone (a stored name may be referenced).
        case withoutIndexing
        /// Literal never indexed: not even intermediaries may index it.
        case neverIndexed
    }

    /// The lowercase header name, or a pseudo-header such as `:path`.
    public var name: String
    /// The value.
    public var value: String
    /// How HPACK may store it.
    public var indexing: Indexing

    public init(name: String, value: String, indexing: Indexing) {
        self.name = name
        self.value = value
        self.indexing = indexing
    }
}

extension APNSHeader: CustomStringConvertible {
    /// The authorization value is redacted: it carries a provider token (docs/rules.md rule 9).
    public var description: String {
        name == "authorization" ? "authorization: bearer …" : "\(name): \(value)"
    }
}
