/// What the pool needs to know about one connection, shared between its event loop (which
/// writes it) and the pool (which reads it to choose a connection).
struct APNSConnectionStatus: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        case connecting
        case ready
        /// GOAWAY received: no new streams; in-flight ones finish.
        case draining
        case closed
    }

    var phase = Phase.connecting
    var inFlight = 0
    /// Streams the server lets us open now: its MAX_CONCURRENT_STREAMS, and 1 until the
    /// first accepted request under token auth (docs/apns.md, "The connection").
    var streamLimit = 1
    /// A request timed out here and the health PING has not come back yet.
    var suspect = false

    var isUsable: Bool { phase == .ready && !suspect }
    var spareStreams: Int { isUsable ? max(streamLimit - inFlight, 0) : 0 }
}
