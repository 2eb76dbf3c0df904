import DequeModule
import NIOCore

extension APNSConnectionStateMachine {
    /// One request on the wire, from its HEADERS to its answer.
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

    /// The streams of one connection: those open, the requests waiting for a slot, the streams
    /// whose bodies wait for window, the next stream ID, and how many streams the server allows.
    struct StreamTable {
        private(set) var open = [Int: Stream]()
        private(set) var waiting = Deque<(request: Request, deadline: NIODeadline)>()
        /// Open streams with body bytes held back by flow control, oldest first.
        private var blocked = Deque<Int>()
        /// Client streams are odd and never reused (RFC 9113 §5.1.1).
        private var nextID: Int
        /// The server's MAX_CONCURRENT_STREAMS (1 until its SETTINGS name one).
        private(set) var serverLimit = 1
        /// Token auth: one stream until APNs accepts a request (the provider token is good).
        private(set) var authenticated: Bool
        /// Streams started since the owner last asked (for metrics).
        private var startedSinceTaken = 0

        init(firstStreamID: Int, authenticated: Bool) {
            nextID = firstStreamID
            self.authenticated = authenticated
        }

        /// Streams the server lets us open now: its MAX_CONCURRENT_STREAMS, and 1 until the first
        /// accepted request under token auth.
        var limit: Int { authenticated ? serverLimit : min(serverLimit, 1) }
        /// Requests on this connection: open streams and those waiting for one.
        var inFlight: Int { open.count + waiting.count }
        var hasRoom: Bool { open.count < limit }

        mutating func enqueue(_ request: consuming Request, deadline: NIODeadline) {
            waiting.append((request, deadline))
        }

        mutating func popWaiting() -> (request: Request, deadline: NIODeadline)? {
            waiting.popFirst()
        }

        /// The oldest waiting request if its deadline passed.
        mutating func popExpiredWaiting(now: NIODeadline) -> Request? {
            guard let first = waiting.first, first.deadline <= now else { return nil }
            return waiting.removeFirst().request
        }

        /// The next stream ID, or nil when the connection has used them all.
        mutating func claimID() -> Int? {
            guard nextID <= HTTP2Wire.maxStreamID else { return nil }
            defer { nextID += 2 }
            return nextID
        }

        /// Takes the stream's record itself (`consuming`): a copy would retain its fields only
        /// for the caller's record to release them.
        mutating func insert(_ stream: consuming Stream, id: Int) {
            if stream.unsent != nil { blocked.append(id) }
            open.updateValue(stream, forKey: id)
            startedSinceTaken += 1
        }

        mutating func remove(_ id: Int) -> Stream? {
            open.removeValue(forKey: id)
        }

        /// Every open stream, for the connection's end.
        mutating func removeAll() -> [Stream] {
            let streams = Array(open.values)
            open.removeAll()
            blocked.removeAll()
            return streams
        }

        /// Streams above a GOAWAY's last-stream-id.
        mutating func remove(above lastID: Int) -> [Stream] {
            var removed: [Stream] = []
            for (id, stream) in open where id > lastID {
                open.removeValue(forKey: id)
                removed.append(stream)
            }
            return removed
        }

        func contains(_ id: Int) -> Bool { open.index(forKey: id) != nil }

        mutating func update(_ id: Int, _ change: (inout Stream) -> Void) {
            // In place through the values' index: `&open[id]!` copied the record out and back.
            guard let index = open.index(forKey: id) else { return }
            change(&open.values[index])
        }

        func expired(now: NIODeadline) -> [Int] {
            open.compactMap { $0.value.deadline <= now ? $0.key : nil }
        }

        /// Moves every open stream's send window by `delta` (SETTINGS_INITIAL_WINDOW_SIZE
        /// changed); false when one would pass the largest window (RFC 9113 §6.9.2).
        mutating func shiftSendWindows(by delta: Int) -> Bool {
            for id in open.keys {
                let window = open[id]!.sendWindow + delta
                guard window <= HTTP2Wire.maxWindowSize else { return false }
                open[id]!.sendWindow = window
            }
            return true
        }

        /// Offers each blocked stream's unsent body to `write`, oldest first; what it leaves
        /// stays blocked.
        mutating func resumeBlocked(_ write: (_ id: Int, _ unsent: ArraySlice<UInt8>, _ window: inout Int) -> ArraySlice<UInt8>?) {
            guard !blocked.isEmpty else { return }
            var stillBlocked = Deque<Int>()
            while let id = blocked.popFirst() {
                guard var stream = open[id], let unsent = stream.unsent else { continue }
                stream.unsent = write(id, unsent, &stream.sendWindow)
                if stream.unsent != nil { stillBlocked.append(id) }
                open[id] = stream
            }
            blocked = stillBlocked
        }

        mutating func setServerLimit(_ limit: Int) {
            serverLimit = limit
        }

        /// APNs accepted a request: the provider token is good, so many streams from now on.
        mutating func accepted() {
            authenticated = true
        }

        mutating func takeStartedCount() -> Int {
            defer { startedSinceTaken = 0 }
            return startedSinceTaken
        }
    }
}
