import NIOCore

extension APNSConnectionStateMachine {
    /// Whether the server is still there: when it last sent anything, the one outstanding PING,
    /// the suspicion a timed-out request raises, and the budget of control frames it may send.
    struct Liveness {
        /// The last time the server sent anything: only that proves the connection alive.
        private(set) var lastActivity: NIODeadline
        /// When the outstanding PING went out, if one did.
        private(set) var pingSentAt: NIODeadline?
        private var pingsSent: UInt64 = 0
        /// A request timed out and the health PING has not come back: the pool avoids the
        /// connection meanwhile.
        private(set) var suspect = false
        private var controlFrames = (windowStart: NIODeadline.uptimeNanoseconds(0), count: 0)

        init(now: NIODeadline) {
            lastActivity = now
        }

        mutating func heard(at now: NIODeadline) {
            lastActivity = now
        }

        mutating func pingAnswered() {
            pingSentAt = nil
            suspect = false
        }

        mutating func becomeSuspect() {
            suspect = true
        }

        func pingTimedOut(now: NIODeadline, timeout: TimeAmount) -> Bool {
            guard let pingSentAt else { return false }
            return now - pingSentAt >= timeout
        }

        func isIdle(now: NIODeadline, interval: TimeAmount) -> Bool {
            now - lastActivity >= interval
        }

        /// The data of a new PING, or nil while one is out: its answer (or its absence) is what
        /// the connection is judged by.
        mutating func startPing(now: NIODeadline) -> UInt64? {
            guard pingSentAt == nil else { return nil }
            pingsSent += 1
            pingSentAt = now
            return pingsSent
        }

        /// Frames that cost work and carry no answer (PING, SETTINGS, empty DATA, ignored types)
        /// are limited per window, so that a flood cannot keep the event loop busy acknowledging
        /// (the "control frame flood" and "empty frames" attacks).
        mutating func countControlFrame(now: NIODeadline, limit: Int, window: TimeAmount) throws(HTTP2ConnectionError) {
            if now - controlFrames.windowStart >= window {
                controlFrames = (now, 0)
            }
            controlFrames.count += 1
            guard controlFrames.count <= limit else {
                throw HTTP2ConnectionError(code: .enhanceYourCalm, detail: "the server sent too many control frames")
            }
        }
    }
}
