import APNSCore
import DequeModule
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
    }

    struct Request {
        /// What the request asks of APNs.
        enum Head {
            case notification(APNSNotification)
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

    enum Phase: Equatable {
        case awaitingSettings
        case ready
        /// No new streams (GOAWAY, a local drain, no stream IDs left); open ones finish.
        case draining
        case closed
    }

    struct Stream {
        var completion: Completion
        var started: NIODeadline
        var deadline: NIODeadline
        var sendWindow: Int
        var status: Int?
        var apnsID: String?
        var body: [UInt8] = []
        /// A channel request: its answer's `apns-channel-id`, `apns-request-id` and a larger body are kept.
        var isChannelRequest = false
        var channelID: String?
        var requestID: String?
        /// The request body not yet sent for want of flow-control window.
        var unsent: ArraySlice<UInt8>?
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
    private(set) var phase = Phase.awaitingSettings
    /// Bytes to write: the owner writes and clears them after every event.
    var outbound: ByteBuffer
    /// Effects to perform: the owner takes them after every event (`takeEffects`).
    private(set) var effects: [Effect] = []
    /// The provider token the next streams carry (token auth); the owner keeps it fresh.
    var providerToken: String?
    /// Streams started since the owner last read it (for metrics).
    var streamsStarted = 0

    var nextStreamID = 1
    private(set) var streams = [Int: Stream]()
    private(set) var waiting = Deque<(request: Request, deadline: NIODeadline)>()
    var blocked = Deque<Int>()
    var reader = HTTP2FrameReader()
    var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    var encoder = HPACKRequestEncoder()
    var indexing = HeaderIndexingState()
    /// HEADERS waiting for their CONTINUATION frames.
    var pendingHeaderBlock: (streamID: Int, block: ByteBuffer, endStream: Bool)?
    var connectionSendWindow = HTTP2Wire.defaultWindowSize
    var initialStreamWindow = HTTP2Wire.defaultWindowSize
    var maxFrameSize = HTTP2Wire.defaultMaxFrameSize
    var receivedSinceWindowUpdate = 0
    var serverStreamLimit = 1
    var authenticated: Bool
    var closeReason: APNSClientError?
    private(set) var prefaceSent = false
    /// The last time the server sent anything: only that proves the connection alive.
    var lastActivity: NIODeadline
    /// When the outstanding PING went out, if one did.
    var pingSentAt: NIODeadline?
    var pingsSent: UInt64 = 0
    /// A request timed out and the health PING has not come back: the pool avoids the
    /// connection meanwhile.
    var suspect = false
    var controlFrames = (windowStart: NIODeadline.uptimeNanoseconds(0), count: 0)

    init(configuration: Configuration, now: NIODeadline, outbound: ByteBuffer = ByteBuffer()) {
        self.configuration = configuration
        self.outbound = outbound
        authenticated = !configuration.requiresAuthentication
        lastActivity = now
    }

    /// Streams the server lets us open now: its MAX_CONCURRENT_STREAMS, and 1 until the first
    /// accepted request under token auth.
    var streamLimit: Int { authenticated ? serverStreamLimit : min(serverStreamLimit, 1) }
    /// Requests on this connection: open streams and those waiting for one.
    var inFlight: Int { streams.count + waiting.count }

    /// Hands the effects over to the owner, keeping the array's storage for the next event.
    mutating func takeEffects(_ body: (Effect) -> Void) {
        guard !effects.isEmpty else { return }
        for effect in effects { body(effect) }
        effects.removeAll(keepingCapacity: true)
    }

    // MARK: Events

    /// RFC 9113 §3.4: the client's preface, its SETTINGS, and a connection window as large as
    /// each stream's. Written once the channel is active; TLS holds them until its handshake.
    mutating func channelActive() {
        guard !prefaceSent else { return }
        prefaceSent = true
        outbound.writeStaticString(HTTP2Wire.preface)
        HTTP2Wire.writeSettings(into: &outbound, Self.settings)
        HTTP2Wire.writeWindowUpdate(into: &outbound, streamID: 0, increment: Self.receiveWindow - HTTP2Wire.defaultWindowSize)
    }

    /// Queues requests; they start as soon as the stream limit allows. Each must be answered
    /// within `requestTimeout` from now.
    mutating func submit(_ requests: some Collection<Request>, now: NIODeadline, writable: Bool) {
        guard phase == .awaitingSettings || phase == .ready else {
            let error = closeReason ?? .unprocessed("the connection is closing")
            for request in requests { effects.append(.fail(request.completion, error)) }
            return
        }
        let deadline = now + configuration.requestTimeout
        for request in requests { waiting.append((request, deadline)) }
        startWaiting(now: now, writable: writable)
    }

    /// The socket can take more (or less): start what waits while it can.
    mutating func writabilityChanged(writable: Bool, now: NIODeadline) {
        if writable { startWaiting(now: now, writable: true) }
    }

    /// The setup deadline passed: TLS, ALPN and the server's SETTINGS did not all arrive.
    mutating func setupTimedOut() {
        guard phase == .awaitingSettings else { return }
        close(.connectFailed("TLS and HTTP/2 setup took longer than the connect timeout"))
    }

    /// Fails every request that waits, with `error`: the signing key cannot make tokens.
    mutating func failWaiting(with error: APNSClientError) {
        while let (request, _) = waiting.popFirst() { effects.append(.fail(request.completion, error)) }
    }

    /// No new streams from now on; the open ones finish, then the connection closes.
    /// Requests not started yet fail with `error`, so that the pool sends them elsewhere.
    mutating func beginDraining(failingWaitingWith error: APNSClientError) {
        guard phase != .closed else { return }
        phase = .draining
        failWaiting(with: error)
        closeIfDrained()
    }

    /// Ends the connection: the owner closes the channel (after writing `outbound`).
    mutating func close(_ error: APNSClientError) {
        guard phase != .closed else { return }
        if closeReason == nil { closeReason = error }
        effects.append(.close(error))
    }

    /// The channel is gone: every request still here fails with the reason it closed.
    mutating func channelClosed() {
        let reason = closeReason ?? .connectionLost("the connection closed before APNs answered")
        closeReason = reason
        phase = .closed
        let open = streams
        streams.removeAll()
        blocked.removeAll()
        for (_, stream) in open { effects.append(.fail(stream.completion, reason)) }
        failWaiting(with: reason)
    }

    // MARK: Streams

    mutating func startWaiting(now: NIODeadline, writable: Bool) {
        // Backpressure: while the socket cannot take more, requests wait here rather than pile
        // up in NIO's buffers (writabilityChanged starts them again).
        while phase == .ready, writable, streams.count < streamLimit, let (request, deadline) = waiting.popFirst() {
            start(request, deadline: deadline, now: now)
        }
        closeIfDrained()
    }

    private mutating func start(_ request: Request, deadline: NIODeadline, now: NIODeadline) {
        guard nextStreamID <= HTTP2Wire.maxStreamID else {
            // RFC 9113 §5.1.1: stream IDs cannot be reused; this connection is done.
            let exhausted = APNSClientError.unprocessed("the connection has used all its stream IDs")
            effects.append(.fail(request.completion, exhausted))
            beginDraining(failingWaitingWith: exhausted)
            return
        }
        let streamID = nextStreamID
        nextStreamID += 2
        // A request's header block is well under 1 KB and every server takes 16 KB frames
        // (RFC 9113 §4.2), so it always fits one HEADERS frame.
        let frame = HTTP2Wire.beginFrame(into: &outbound, type: .headers, flags: HTTP2Wire.Flag.endHeaders, streamID: streamID)
        encoder.beginBlock(into: &outbound)
        encoder.encode(APNSHeader(name: ":authority", value: configuration.authority, indexing: .incremental), into: &outbound)
        var stream = Stream(completion: request.completion, started: now, deadline: deadline, sendWindow: initialStreamWindow)
        switch request.head {
        case .notification(let notification):
            encoder.encode(notification.requestHeaders(providerToken: providerToken, indexing: &indexing), into: &outbound)
        case .channel(let channelRequest):
            encoder.encode(channelRequest.requestHeaders(providerToken: providerToken), into: &outbound)
            stream.isChannelRequest = true
        }
        HTTP2Wire.endFrame(in: &outbound, startedAt: frame)
        stream.unsent = writeBody(request.body[...], streamID: streamID, window: &stream.sendWindow)
        if stream.unsent != nil { blocked.append(streamID) }
        streams[streamID] = stream
        streamsStarted += 1
    }

    /// Writes as much of a request body as the flow-control windows allow (RFC 9113 §5.2)
    /// and returns the rest, which waits for a WINDOW_UPDATE.
    mutating func writeBody(_ body: ArraySlice<UInt8>, streamID: Int, window: inout Int) -> ArraySlice<UInt8>? {
        var rest = body
        while true {
            let length = min(rest.count, connectionSendWindow, window, maxFrameSize)
            // An empty body still ends the stream; a non-empty one needs some window.
            guard length == rest.count || length > 0 else { return rest }
            HTTP2Wire.writeData(into: &outbound, streamID: streamID, bytes: rest.prefix(length), endStream: length == rest.count)
            connectionSendWindow -= length
            window -= length
            rest = rest.dropFirst(length)
            if rest.isEmpty { return nil }
        }
    }

    /// After a window grew: sends what flow control held back, oldest stream first.
    mutating func resumeBlocked() {
        guard !blocked.isEmpty else { return }
        var stillBlocked = Deque<Int>()
        while let streamID = blocked.popFirst() {
            guard var stream = streams[streamID], let unsent = stream.unsent else { continue }
            stream.unsent = writeBody(unsent, streamID: streamID, window: &stream.sendWindow)
            if stream.unsent != nil { stillBlocked.append(streamID) }
            streams[streamID] = stream
        }
        blocked = stillBlocked
    }

    /// A stream's final answer arrived (or its END_STREAM).
    mutating func complete(_ streamID: Int, now: NIODeadline) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
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
        if (200..<300).contains(response.status), !authenticated { authenticated = true }
        effects.append(.succeed(stream.completion, response, latency: now - stream.started))
    }

    /// Ends one of our streams with RST_STREAM and fails its request (RFC 9113 §5.4.2).
    mutating func resetStream(_ streamID: Int, code: HTTP2Wire.ErrorCode, failure: APNSClientError) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        HTTP2Wire.writeRSTStream(into: &outbound, streamID: streamID, code: code)
        effects.append(.fail(stream.completion, failure))
    }

    /// The server removed a stream itself.
    mutating func streamWasReset(_ streamID: Int, failure: APNSClientError) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        effects.append(.fail(stream.completion, failure))
    }

    mutating func updateStream(_ streamID: Int, _ update: (inout Stream) -> Void) {
        guard streams[streamID] != nil else { return }
        update(&streams[streamID]!)
    }

    func hasStream(_ streamID: Int) -> Bool { streams[streamID] != nil }

    /// Sets every open stream's send window by `delta` (SETTINGS_INITIAL_WINDOW_SIZE changed);
    /// false when one would pass the largest window (RFC 9113 §6.9.2).
    mutating func shiftStreamWindows(by delta: Int) -> Bool {
        for streamID in streams.keys {
            let window = streams[streamID]!.sendWindow + delta
            guard window <= HTTP2Wire.maxWindowSize else { return false }
            streams[streamID]!.sendWindow = window
        }
        return true
    }

    /// A draining connection with nothing open left closes.
    mutating func closeIfDrained() {
        if phase == .draining, streams.isEmpty { close(closeReason ?? .unprocessed("the connection drained")) }
    }

    mutating func becomeReady() {
        phase = .ready
        effects.append(.ready)
    }

    mutating func failStreamsAbove(_ lastStreamID: Int, with error: APNSClientError) {
        for (id, stream) in streams where id > lastStreamID {
            streams.removeValue(forKey: id)
            effects.append(.fail(stream.completion, error))
        }
    }

    mutating func record(_ effect: Effect) {
        effects.append(effect)
    }

    mutating func popExpiredWaiting(now: NIODeadline) -> Request? {
        guard let first = waiting.first, first.deadline <= now else { return nil }
        return waiting.removeFirst().request
    }

    func expiredStreams(now: NIODeadline) -> [Int] {
        streams.compactMap { $0.value.deadline <= now ? $0.key : nil }
    }
}

/// A request crosses onto the connection's event loop with its completion.
extension APNSConnectionStateMachine.Request: Sendable where Completion: Sendable {}
