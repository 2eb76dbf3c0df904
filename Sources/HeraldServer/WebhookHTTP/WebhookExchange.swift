/// One keep-alive HTTP/1.1 connection's exchanges with a webhook endpoint, without I/O:
/// `WebhookExchangeHandler` feeds it what happens on the channel and does what it answers
/// (docs/webhooks.md, "Running it"). One request at a time (no pipelining: a receiver that
/// answers out of order or closes early must not cost another message its answer); the
/// answer's status is the attempt's outcome, its body is read up to `maxBodyBytes` so the
/// connection can carry the next request, and anything that leaves the connection in doubt
/// closes it.
struct WebhookExchange {
    enum State: Equatable {
        /// Ready for a request.
        case idle
        /// The request is written; no byte of the answer has come.
        case awaitingHead
        /// An informational answer (100 Continue, 103 Early Hints) came; the answer follows it.
        case informational
        /// The status is known; reading the body to its end.
        case readingBody(status: Int, keepAlive: Bool, read: Int)
        case closed
    }

    /// Why an exchange has no status.
    enum Failure: Equatable, Sendable {
        /// The connection closed before any answer. On a connection that had carried a request
        /// before, the endpoint most likely closed it as idle just as this one was written.
        case closedBeforeAnswer
        case timedOut
        /// A 101: the endpoint wants another protocol; nothing here speaks it.
        case switchedProtocols
        /// The channel failed (reset, TLS…): the error's one-line description.
        case failed(String)
    }

    enum Outcome: Equatable, Sendable {
        case answered(Int)
        case failed(Failure)
    }

    /// An exchange's end, for its caller: the outcome, whether the connection may carry the
    /// next request, and whether any of the answer had come (a failure before it, on a
    /// connection that had carried requests, is worth one more try on a new one).
    struct Finished: Equatable, Sendable {
        var outcome: Outcome
        var keepConnection: Bool
        var answerBegan = true
    }

    enum Action: Equatable {
        case none
        /// Write the request.
        case write
        /// The exchange is over: hand `outcome` to its caller; keep the connection for the next
        /// request, or close it.
        case finish(Outcome, keepConnection: Bool)
        case close
    }

    let maxBodyBytes: Int
    private(set) var state = State.idle
    /// Why the connection closed while idle (TLS refused during the handshake, say), for the
    /// request that comes next.
    private(set) var closedBecause: Failure?
    /// Whether the exchange under way (or the last one) had the status of its answer.
    private(set) var answerBegan = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    var isIdle: Bool { state == .idle }

    /// A request to send; only on an idle connection (the pool hands out idle ones only). On
    /// one that closed meanwhile, the request ends at once with the reason it closed.
    mutating func send() -> Action {
        switch state {
        case .idle:
            state = .awaitingHead
            answerBegan = false
            return .write
        case .closed:
            answerBegan = false
            return .finish(.failed(closedBecause ?? .closedBeforeAnswer), keepConnection: false)
        case .awaitingHead, .informational, .readingBody:
            return .finish(.failed(.failed("the connection is busy")), keepConnection: true)
        }
    }

    mutating func head(status: Int, keepAlive: Bool) -> Action {
        switch state {
        case .awaitingHead where status == 101, .informational where status == 101:
            state = .closed
            return .finish(.failed(.switchedProtocols), keepConnection: false)
        case .awaitingHead where (100..<200).contains(status), .informational where (100..<200).contains(status):
            state = .informational
            return .none
        case .awaitingHead, .informational:
            state = .readingBody(status: status, keepAlive: keepAlive, read: 0)
            answerBegan = true
            return .none
        case .idle, .readingBody:
            // An answer nobody asked for: the connection is out of step.
            return protocolError()
        case .closed:
            return .none
        }
    }

    mutating func body(bytes: Int) -> Action {
        guard case .readingBody(let status, let keepAlive, let read) = state else {
            return state == .closed || state == .informational ? .none : protocolError()
        }
        guard read + bytes <= maxBodyBytes else {
            // The status is the answer; the rest of a large body is not waited for.
            state = .closed
            return .finish(.answered(status), keepConnection: false)
        }
        state = .readingBody(status: status, keepAlive: keepAlive, read: read + bytes)
        return .none
    }

    mutating func end() -> Action {
        switch state {
        case .informational:
            state = .awaitingHead
            return .none
        case .readingBody(let status, let keepAlive, _):
            state = keepAlive ? .idle : .closed
            return .finish(.answered(status), keepConnection: keepAlive)
        case .closed:
            return .none
        case .idle, .awaitingHead:
            return protocolError()
        }
    }

    /// The deadline of the exchange under way passed.
    mutating func deadlinePassed() -> Action {
        switch state {
        case .awaitingHead, .informational, .readingBody:
            state = .closed
            return .finish(.failed(.timedOut), keepConnection: false)
        case .idle, .closed:
            return .none
        }
    }

    /// The channel failed: `reason` is the error's description.
    mutating func failed(_ reason: String) -> Action {
        switch state {
        case .awaitingHead, .informational, .readingBody:
            state = .closed
            return .finish(.failed(.failed(reason)), keepConnection: false)
        case .idle:
            state = .closed
            closedBecause = .failed(reason)
            return .close
        case .closed:
            return .none
        }
    }

    /// The connection closed.
    mutating func closed() -> Action {
        let was = state
        state = .closed
        switch was {
        case .awaitingHead, .informational:
            return .finish(.failed(.closedBeforeAnswer), keepConnection: false)
        case .readingBody(let status, _, _):
            // The status came; a body that ends with the connection is allowed in HTTP/1.1.
            return .finish(.answered(status), keepConnection: false)
        case .idle, .closed:
            return .none
        }
    }

    /// An answer out of step with the request: the connection cannot be trusted any more.
    private mutating func protocolError() -> Action {
        failed("the endpoint's answer is not valid HTTP/1.1")
    }
}
