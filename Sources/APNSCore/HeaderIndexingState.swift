/// What one HTTP/2 connection has already sent of the per-request headers.
///
/// docs/apns.md "Header compression": `apns-id`, `apns-expiration` and `apns-collapse-id`
/// use incremental indexing the first time on a connection and literal without indexing
/// afterwards. Keep one value per connection and start afresh on a new connection.
public struct HeaderIndexingState: Hashable, Sendable {
    private var sentAPNSID = false
    private var sentExpiration = false
    private var sentCollapseID = false

    /// A state for a connection that has sent nothing yet.
    public init() {}

    /// The indexing for the next `apns-id`, remembering that one has now been sent.
    public mutating func nextAPNSIDIndexing() -> APNSHeader.Indexing {
        Self.next(&sentAPNSID)
    }

    /// The indexing for the next `apns-expiration`, remembering that one has now been sent.
    public mutating func nextExpirationIndexing() -> APNSHeader.Indexing {
        Self.next(&sentExpiration)
    }

    /// The indexing for the next `apns-collapse-id`, remembering that one has now been sent.
    public mutating func nextCollapseIDIndexing() -> APNSHeader.Indexing {
        Self.next(&sentCollapseID)
    }

    private static func next(_ sent: inout Bool) -> APNSHeader.Indexing {
        defer { sent = true }
        return sent ? .withoutIndexing : .incremental
    }
}
