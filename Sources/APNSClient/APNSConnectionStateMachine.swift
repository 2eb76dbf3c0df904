import APNSCore
import Foundation
import NIOCore
import NIOHPACK

/// The protocol logic of one HTTP/2 connection to APNs, as a value: events go in (bytes read,
/// requests submitted, the clock ticking, the socket becoming writable, the channel closing),
/// and what the owner must do comes out: bytes to write (`outbound`) and effects (answers to
/// deliver, the connection to close). It performs no I/O, so every rule here (flow control,
/// stream limits, GOAWAY, PING, deadlines, limits on what the peer may send) is tested without
/// a network. `APNSConnectionHandler` feeds it on the connection's event loop.
///
/// Only what an APNs client needs of RFC 9113 is here: no server push, no priorities,
/// answers of a few hundred bytes. See docs/apns.md, "The connection".
struct APNSConnectionStateMachine<Completion> {
    struct Configuration {
        var authority: String
        /// How long a request may wait for a stream slot and then for its answer.
        var requestTimeout: TimeAmount
        /// PING a connection that heard nothing for this long.
        var idlePingInterval: TimeAmount
        /// A PING unanswered for this long means the connection is dead.
        var pingTimeout: TimeAmount
        /// Token auth: one stream until APNs accepts a request (the provider token is good).
        var requiresAuthentication: Bool
        /// The largest response header block accepted, CONTINUATION frames included.
        var maximumHeaderBlock = 64 * 1024
        /// PING, SETTINGS, empty DATA and ignored frames the peer may send per `controlFrameWindow`
        /// (swift-nio-http2's own default for servers: 200 in 30 seconds).
        var maximumControlFrames = 200
        var controlFrameWindow = TimeAmount.seconds(30)
        /// The first stream ID (RFC 9113 §5.1.1: client streams are odd): 1 on a new connection,
        /// near the end of the range only in drills that use the IDs up.
        var firstStreamID = 1
    }

    struct Request {
        /// What the request asks of APNs.
        enum Head {
            case notification(APNSNotification)
            /// A notification of a batch, by its place: the request holds the batch (one
            /// reference) instead of a copy of the notification (one per field).
            case batched(APNSRequestBatch, index: Int)
            /// A broadcast or a channel management request (docs/live-activities.md).
            case channel(APNSChannelRequest)
        }

        var head: Head
        var body: [UInt8]
        var completion: Completion

        init(notification: APNSNotification, body: [UInt8], completion: Completion) {
            self.head = .notification(notification)
            self.body = body
            self.completion = completion
        }

        init(batch: APNSRequestBatch, index: Int, completion: Completion) {
            self.head = .batched(batch, index: index)
            self.body = batch.bodies[index]
            self.completion = completion
        }

        init(channelRequest: APNSChannelRequest, body: [UInt8], completion: Completion) {
            self.head = .channel(channelRequest)
            self.body = body
            self.completion = completion
        }
    }

    /// What the owner must do besides writing `outbound`.
    enum Effect {
        case succeed(Completion, APNSResponse, latency: TimeAmount)
        case fail(Completion, APNSClientError)
        /// The server's first SETTINGS arrived: the connection can take requests.
        case ready
        /// APNs sent GOAWAY with this reason; the connection drains.
        case goAway(reason: String)
        /// Streams or queued requests whose deadline passed; they were failed with `.timeout`.
        case timedOut(count: Int)
        /// Write what is in `outbound`, then close the channel.
        case close(APNSClientError)
    }

    /// Where the connection is; what only holds in one phase is inside its case.
    enum Phase: Equatable {
        /// The channel is not active yet: nothing written.
        case idle
        /// The preface and SETTINGS went out; the server's SETTINGS have not come.
        case awaitingSettings
        case ready
        /// No new streams (GOAWAY, a local drain, no stream IDs left); open ones finish.
        case draining
        /// The owner was told to close the channel, for this reason.
        case closing(APNSClientError)
        /// The channel is gone; this is why.
        case closed(APNSClientError)
    }

    /// What Herald announces (RFC 9113 §6.5.2): no push, and 1 MiB windows so that the
    /// server never waits for a WINDOW_UPDATE for the small answers APNs sends.
    static var receiveWindow: Int { 1 << 20 }
    static var settings: [(HTTP2Wire.Setting, UInt32)] {
        [(.enablePush, 0), (.maxConcurrentStreams, 0), (.initialWindowSize, UInt32(receiveWindow))]
    }
    /// RFC 9113 leaves the stream limit open until the server names one; Herald caps it.
    static var defaultStreamLimit: Int { 1000 }
    /// The most of an error answer kept (APNs's are under 100 bytes).
    static var maximumResponseBody: Int { 16_384 }
    /// The most of a channel answer kept: a list of up to 10,000 channel IDs.
    static var maximumChannelResponseBody: Int { 1 << 20 }

    let configuration: Configuration
    private(set) var phase = Phase.idle
    /// Bytes to write, one buffer for every frame of an event: the owner takes them after
    /// every event (`takeOutbound`).
    private(set) var outbound: ByteBuffer
    /// Effects to perform: the owner takes them after every event (`takeEffects`).
    private(set) var effects: [Effect] = []
    /// The provider token the next streams carry (token auth); the owner keeps it fresh.
    private var providerToken: String?
    /// `bearer <providerToken>`, the header value, made once per token.
    private var authorization: String?
    // The groups below change only through their own methods; the machine's extensions in the
    // other files of this type need them writable, which Swift cannot limit to the type.
    var streams: StreamTable
    var flow = FlowControl()
    var liveness: Liveness
    var codec = Codec()

    init(configuration: Configuration, now: NIODeadline, outbound: ByteBuffer = ByteBuffer()) {
        self.configuration = configuration
        self.outbound = outbound
        streams = StreamTable(firstStreamID: configuration.firstStreamID, authenticated: !configuration.requiresAuthentication)
        liveness = Liveness(now: now)
    }

    /// Streams the server lets us open now: its MAX_CONCURRENT_STREAMS, and 1 until the first
    /// accepted request under token auth.
    var streamLimit: Int { streams.limit }
    /// Requests on this connection: open streams and those waiting for one.
    var inFlight: Int { streams.inFlight }
    /// A request timed out and the health PING has not come back.
    var suspect: Bool { liveness.suspect }
    /// Whether requests wait for a stream (the owner renews the provider token only then).
    var hasWaiting: Bool { !streams.waiting.isEmpty }
    /// Why the connection ends, once it does.
    var closeReason: APNSClientError? {
        switch phase {
        case .closing(let reason), .closed(let reason): reason
        case .idle, .awaitingSettings, .ready, .draining: nil
        }
    }
    /// Neither closing nor closed: frames and the clock still count.
    var isOpen: Bool { closeReason == nil }
    /// The status the pool chooses connections by: a closing connection takes no new requests.
    var statusPhase: APNSConnectionStatus.Phase {
        switch phase {
        case .idle, .awaitingSettings: .connecting
        case .ready: .ready
        case .draining, .closing: .draining
        case .closed: .closed
        }
    }

    /// Hands the effects over to the owner, keeping the array's storage for the next event.
    mutating func takeEffects(_ body: (Effect) -> Void) {
        guard !effects.isEmpty else { return }
        for effect in effects { body(effect) }
        effects.removeAll(keepingCapacity: true)
    }

    /// Hands the bytes to write over to the owner.
    mutating func takeOutbound() -> ByteBuffer {
        // Taken out before writing: a write can change writability at once, and that event
        // must not find these bytes still here and write them twice.
        let bytes = outbound
        outbound.clear()
        return bytes
    }

    /// The buffer frames are written into (the channel allocator's, once there is a channel).
    mutating func useOutboundBuffer(_ buffer: ByteBuffer) {
        outbound = buffer
    }

    /// Streams started since the owner last asked (for metrics).
    mutating func takeStartedCount() -> Int {
        streams.takeStartedCount()
    }

    /// The provider token the next streams carry.
    mutating func useProviderToken(_ token: String) {
        providerToken = token
        authorization = "bearer " + token
    }

    // MARK: Events

    /// RFC 9113 §3.4: the client's preface, its SETTINGS, and a connection window as large as
    /// each stream's. Written once the channel is active; TLS holds them until its handshake.
    mutating func channelActive() {
        guard phase == .idle else { return }
        phase = .awaitingSettings
        outbound.writeStaticString(HTTP2Wire.preface)
        HTTP2Wire.writeSettings(into: &outbound, Self.settings)
        HTTP2Wire.writeWindowUpdate(into: &outbound, streamID: 0, increment: Self.receiveWindow - HTTP2Wire.defaultWindowSize)
    }

    /// Queues requests; they start as soon as the stream limit allows. Each must be answered
    /// within `requestTimeout` from now.
    mutating func submit(_ requests: some Collection<Request>, now: NIODeadline, writable: Bool) {
        switch phase {
        case .idle, .awaitingSettings, .ready:
            let deadline = now + configuration.requestTimeout
            for request in requests { streams.enqueue(request, deadline: deadline) }
            startWaiting(now: now, writable: writable)
        case .draining, .closing, .closed:
            let error = closeReason ?? .unprocessed("the connection is closing")
            for request in requests { effects.append(.fail(request.completion, error)) }
        }
    }

    /// The socket can take more (or less): start what waits while it can.
    mutating func writabilityChanged(writable: Bool, now: NIODeadline) {
        if writable { startWaiting(now: now, writable: true) }
    }

    /// The setup deadline passed: TLS, ALPN and the server's SETTINGS did not all arrive.
    mutating func setupTimedOut() {
        guard phase == .idle || phase == .awaitingSettings else { return }
        close(.connectFailed("TLS and HTTP/2 setup took longer than the connect timeout"))
    }

    /// Fails every request that waits, with `error`: the signing key cannot make tokens.
    mutating func failWaiting(with error: APNSClientError) {
        while let (request, _) = streams.popWaiting() { effects.append(.fail(request.completion, error)) }
    }

    /// No new streams from now on; the open ones finish, then the connection closes.
    /// Requests not started yet fail with `error`, so that the pool sends them elsewhere.
    mutating func beginDraining(failingWaitingWith error: APNSClientError) {
        switch phase {
        case .idle, .awaitingSettings, .ready: phase = .draining
        case .draining, .closing: break
        case .closed: return
        }
        failWaiting(with: error)
        closeIfDrained()
    }

    /// Ends the connection: the owner closes the channel (after writing `outbound`).
    mutating func close(_ error: APNSClientError) {
        guard isOpen else { return }
        phase = .closing(error)
        effects.append(.close(error))
    }

    /// The channel is gone: every request still here fails with the reason it closed.
    mutating func channelClosed() {
        if case .closed = phase { return }
        let reason = closeReason ?? .connectionLost("the connection closed before APNs answered")
        phase = .closed(reason)
        for stream in streams.removeAll() { effects.append(.fail(stream.completion, reason)) }
        failWaiting(with: reason)
    }

    // MARK: Streams

    mutating func startWaiting(now: NIODeadline, writable: Bool) {
        // Backpressure: while the socket cannot take more, requests wait here rather than pile
        // up in NIO's buffers (writabilityChanged starts them again).
        while phase == .ready, writable, streams.hasRoom, let (request, deadline) = streams.popWaiting() {
            start(request, deadline: deadline, now: now)
        }
        closeIfDrained()
    }

    private mutating func start(_ request: Request, deadline: NIODeadline, now: NIODeadline) {
        guard let streamID = streams.claimID() else {
            // RFC 9113 §5.1.1: stream IDs cannot be reused; this connection is done.
            let exhausted = APNSClientError.unprocessed("the connection has used all its stream IDs")
            effects.append(.fail(request.completion, exhausted))
            beginDraining(failingWaitingWith: exhausted)
            return
        }
        codec.writeHeaders(
            of: request.head, streamID: streamID, authority: configuration.authority, providerToken: providerToken,
            authorization: authorization, into: &outbound)
        var stream = Stream(completion: request.completion, started: now, deadline: deadline, sendWindow: flow.initialStreamWindow)
        if case .channel = request.head { stream.isChannelRequest = true }
        stream.unsent = flow.writeBody(request.body[...], streamID: streamID, window: &stream.sendWindow, into: &outbound)
        streams.insert(stream, id: streamID)
    }

    /// After a window grew: sends what flow control held back, oldest stream first.
    mutating func resumeBlocked() {
        streams.resumeBlocked { streamID, unsent, window in
            flow.writeBody(unsent, streamID: streamID, window: &window, into: &outbound)
        }
    }

    /// A stream's final answer arrived (or its END_STREAM).
    mutating func complete(_ streamID: Int, now: NIODeadline) {
        guard let stream = streams.remove(streamID) else { return }
        if stream.unsent != nil {
            // RFC 9113 §8.1: the answer came before the whole body; close our half too.
            HTTP2Wire.writeRSTStream(into: &outbound, streamID: streamID, code: .cancel)
        }
        var response = APNSResponse(status: stream.status ?? 0, apnsIDHeader: stream.apnsID, body: stream.body)
        if stream.isChannelRequest {
            response.channelID = stream.channelID.flatMap { BroadcastChannelID($0) }
            response.requestID = stream.requestID.flatMap { UUID(uuidString: $0) }
            response.body = stream.body
        }
        // With token auth, many streams only after an accepted request (docs/apns.md); channel
        // management answers 201 and 204 too.
        if (200..<300).contains(response.status), !streams.authenticated { streams.accepted() }
        effects.append(.succeed(stream.completion, response, latency: now - stream.started))
    }

    /// Ends one of our streams with RST_STREAM and fails its request (RFC 9113 §5.4.2).
    mutating func resetStream(_ streamID: Int, code: HTTP2Wire.ErrorCode, failure: APNSClientError) {
        guard let stream = streams.remove(streamID) else { return }
        HTTP2Wire.writeRSTStream(into: &outbound, streamID: streamID, code: code)
        effects.append(.fail(stream.completion, failure))
    }

    /// The server removed a stream itself.
    mutating func streamWasReset(_ streamID: Int, failure: APNSClientError) {
        guard let stream = streams.remove(streamID) else { return }
        effects.append(.fail(stream.completion, failure))
    }

    /// A draining connection with nothing open left closes.
    mutating func closeIfDrained() {
        if phase == .draining, streams.open.isEmpty { close(.unprocessed("the connection drained")) }
    }

    mutating func becomeReady() {
        phase = .ready
        effects.append(.ready)
    }

    mutating func failStreams(above lastStreamID: Int, with error: APNSClientError) {
        for stream in streams.remove(above: lastStreamID) { effects.append(.fail(stream.completion, error)) }
    }

    mutating func record(_ effect: Effect) {
        effects.append(effect)
    }

    /// Writes a frame the machine decided on outside the stream table (PING, SETTINGS ack,
    /// WINDOW_UPDATE, GOAWAY) into the outbound buffer.
    mutating func write(_ frame: (inout ByteBuffer) -> Void) {
        frame(&outbound)
    }
}

/// A request crosses onto the connection's event loop with its completion.
extension APNSConnectionStateMachine.Request: Sendable where Completion: Sendable {}
