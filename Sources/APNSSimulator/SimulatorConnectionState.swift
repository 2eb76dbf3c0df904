/// The per-connection script as a value whose events return what to do; the connection
/// performs the I/O, so the rules are tested without a network (docs/rules.md, "Modules").
///
/// - Stream limit (docs/apns.md "The connection"): one stream until the first request with a valid
///   provider token, then the configured MAX_CONCURRENT_STREAMS, announced once.
/// - GOAWAY: when the Nth request arrives its stream becomes the last-stream-id; once every
///   stream up to it has closed, the connection closes.
/// - Silence: requests after the Nth get no answer; once the Nth answer is out (with N = 0:
///   when the first request arrives), nothing more leaves the connection.
struct SimulatorConnectionState {
    /// What a new request means for the connection.
    enum RequestStartAction: Equatable {
        /// Nothing to do besides handling it.
        case proceed
        /// Send GOAWAY naming this stream as the last one processed.
        case sendGoAway(lastStreamID: Int)
        /// Stop sending anything at all.
        case goSilent
        /// The stream is above the GOAWAY's last-stream-id: not processed, never answered;
        /// the client retries it elsewhere (docs/apns.md "The connection").
        case ignore
    }

    private let goAwayAfterRequests: Int?
    private let stopAnsweringAfterRequests: Int?
    private let authenticatedMaxConcurrentStreams: Int?

    /// Requests started on this connection.
    private(set) var requestCount = 0
    /// Streams open (request received, stream not yet closed).
    private(set) var openStreams = 0
    /// The last-stream-id of the GOAWAY sent, if one was.
    private(set) var goAwayLastStreamID: Int?
    /// True once nothing more may leave the connection.
    private(set) var isSilent = false
    private var raisedStreamLimit = false
    private var closing = false

    init(
        goAwayAfterRequests: Int?,
        stopAnsweringAfterRequests: Int?,
        initialMaxConcurrentStreams: Int,
        maxConcurrentStreams: Int
    ) {
        self.goAwayAfterRequests = goAwayAfterRequests
        self.stopAnsweringAfterRequests = stopAnsweringAfterRequests
        authenticatedMaxConcurrentStreams =
            maxConcurrentStreams > initialMaxConcurrentStreams ? maxConcurrentStreams : nil
    }

    init(configuration: SimulatorConfiguration) {
        self.init(
            goAwayAfterRequests: configuration.fault.goAwayAfterRequests,
            stopAnsweringAfterRequests: configuration.fault.stopAnsweringAfterRequests,
            initialMaxConcurrentStreams: configuration.initialMaxConcurrentStreams,
            maxConcurrentStreams: configuration.maxConcurrentStreams
        )
    }

    /// A stream opened.
    mutating func streamOpened() {
        openStreams += 1
    }

    /// A stream closed; true when the connection should now close (GOAWAY sent, nothing left
    /// in flight).
    mutating func streamClosed() -> Bool {
        openStreams -= 1
        guard goAwayLastStreamID != nil, openStreams == 0, !closing else { return false }
        closing = true
        return true
    }

    /// A request's headers arrived on `streamID`; returns its number on the connection
    /// (1-based) and what to do.
    mutating func requestStarted(streamID: Int) -> (number: Int, action: RequestStartAction) {
        if let last = goAwayLastStreamID, streamID > last { return (requestCount, .ignore) }
        requestCount += 1
        let number = requestCount
        if stopAnsweringAfterRequests == 0, !isSilent {
            isSilent = true
            return (number, .goSilent)
        }
        if let goAwayAfterRequests, number == goAwayAfterRequests, goAwayLastStreamID == nil, !isSilent {
            goAwayLastStreamID = streamID
            return (number, .sendGoAway(lastStreamID: streamID))
        }
        return (number, .proceed)
    }

    /// Whether request `number` gets an answer: not past the Nth, and not once silent.
    func shouldAnswer(requestNumber number: Int) -> Bool {
        guard !isSilent else { return false }
        guard let stopAnsweringAfterRequests else { return true }
        return number <= stopAnsweringAfterRequests
    }

    /// Request `number` was answered; true when the connection should now go silent.
    mutating func answered(requestNumber number: Int) -> Bool {
        guard let stopAnsweringAfterRequests, number >= stopAnsweringAfterRequests, !isSilent else { return false }
        isSilent = true
        return true
    }

    /// A request carried a valid provider token; returns the stream limit to announce the
    /// first time (`nil`: nothing to announce).
    mutating func providerTokenAccepted() -> Int? {
        guard !raisedStreamLimit, let authenticatedMaxConcurrentStreams, !isSilent else { return nil }
        raisedStreamLimit = true
        return authenticatedMaxConcurrentStreams
    }
}
