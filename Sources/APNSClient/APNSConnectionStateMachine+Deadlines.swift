import NIOCore

/// Nothing waits forever: request deadlines, the health PING after a timeout, the idle PING
/// and its answer. The owner calls `tick` at a steady interval (`tickInterval`).
extension APNSConnectionStateMachine {
    /// How often the owner should call `tick`: often enough to honour the shortest deadline
    /// within a quarter of it, never more than once every 10 ms.
    var tickInterval: TimeAmount {
        let shortest = min(configuration.requestTimeout, configuration.pingTimeout, .seconds(4))
        return max(.nanoseconds(shortest.nanoseconds / 4), .milliseconds(10))
    }

    /// The clock moved on: fails what passed its deadline and keeps the connection honest.
    ///
    /// A request still waiting for a stream slot fails with `.timeout` (APNs never saw it). A
    /// stream without an answer is reset (RST_STREAM CANCEL) and fails with `.timeout`; the
    /// connection is then PINGed, and avoided by the pool until the PING comes back. A PING
    /// unanswered for `pingTimeout` closes the connection, failing what is left on it.
    mutating func tick(now: NIODeadline, writable: Bool) {
        guard isOpen else { return }
        if liveness.pingTimedOut(now: now, timeout: configuration.pingTimeout) {
            close(.pingTimeout)
            return
        }
        var timedOut = 0
        while let request = streams.popExpiredWaiting(now: now) {
            record(.fail(request.completion, .timeout("no stream slot within the request timeout")))
            timedOut += 1
        }
        let expired = streams.expired(now: now)
        for streamID in expired {
            resetStream(streamID, code: .cancel, failure: .timeout("APNs did not answer within the request timeout"))
        }
        timedOut += expired.count
        if !expired.isEmpty {
            liveness.becomeSuspect()
            sendPing(now: now)
        } else if liveness.isIdle(now: now, interval: configuration.idlePingInterval) {
            sendPing(now: now)
        }
        if timedOut > 0 { record(.timedOut(count: timedOut)) }
        startWaiting(now: now, writable: writable)
    }

    /// One PING at a time: its answer (or its absence) is what the connection is judged by.
    private mutating func sendPing(now: NIODeadline) {
        guard phase == .ready || phase == .draining, let data = liveness.startPing(now: now) else { return }
        write { HTTP2Wire.writePing(into: &$0, data: data, ack: false) }
    }
}
