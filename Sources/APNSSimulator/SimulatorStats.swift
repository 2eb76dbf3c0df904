import APNSCore

/// A snapshot of what an ``APNSSimulator`` has seen since it started.
public struct SimulatorStats: Hashable, Sendable {
    /// TLS connections accepted.
    public var connectionsOpened = 0
    /// Connections still open.
    public var connectionsOpen = 0
    /// Requests whose headers arrived.
    public var requestsReceived = 0
    /// Requests answered 200: notifications accepted.
    public var accepted = 0
    /// Answers by HTTP status, 200 included.
    public var answeredByStatus: [Int: Int] = [:]
    /// Error answers by reason.
    public var answeredByReason: [APNSReason: Int] = [:]
    /// Requests received on each connection, in the order connections opened.
    public var requestsPerConnection: [Int] = []
    /// Requests left unanswered by ``SimulatorFaultScript/stopAnsweringAfterRequests``.
    public var unanswered = 0
    /// Requests left unanswered by ``SimulatorFaultScript/stallFraction``.
    public var stalled = 0
    /// The apns-id of each stalled request (lowercase), in the order they stalled.
    public var stalledAPNSIDs: [String] = []
    /// GOAWAY frames sent by ``SimulatorFaultScript/goAwayAfterRequests``.
    public var goAwaysSent = 0
    /// Requests whose `:path` or `authorization` arrived with HPACK incremental indexing (or
    /// from the dynamic table): docs/apns.md "Requests", HPACK, says both must be literal without
    /// indexing. A correct client keeps this at 0.
    public var pathOrAuthorizationIndexed = 0

    public init() {}

    /// Every answer sent.
    public var answered: Int {
        answeredByStatus.values.reduce(0, +)
    }

    /// Answers with this status.
    public func answered(status: Int) -> Int {
        answeredByStatus[status, default: 0]
    }

    /// Error answers with this reason.
    public func answered(reason: APNSReason) -> Int {
        answeredByReason[reason, default: 0]
    }
}
