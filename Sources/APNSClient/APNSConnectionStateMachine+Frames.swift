import APNSCore
import Foundation
import NIOCore
import NIOHPACK

/// What the server sends: answers, settings, window updates, pings, resets and GOAWAY, with
/// RFC 9113's rules and limits on what a peer may send.
extension APNSConnectionStateMachine {
    /// Bytes arrived from the server.
    mutating func read(_ bytes: ByteBuffer, now: NIODeadline, writable: Bool) {
        guard isOpen else { return }
        // Only what the server sends proves the connection alive.
        liveness.heard(at: now)
        codec.append(bytes)
        do throws(HTTP2ConnectionError) {
            while isOpen, let frame = try codec.nextFrame() {
                try handle(frame, now: now)
            }
        } catch {
            connectionError(error)
            return
        }
        startWaiting(now: now, writable: writable)
    }

    private mutating func handle(_ frame: ServerFrame, now: NIODeadline) throws(HTTP2ConnectionError) {
        // RFC 9113 §6.10: nothing may come between HEADERS and their CONTINUATION frames.
        if codec.pendingHeaderBlock != nil {
            if let whole = try codec.continuation(of: frame, limit: configuration.maximumHeaderBlock) {
                try headers(whole, now: now)
            }
            return
        }
        switch frame {
        case .headers(let streamID, let block, let endStream, let endHeaders):
            let limit = configuration.maximumHeaderBlock
            if let whole = try codec.headers(streamID: streamID, block: block, endStream: endStream, endHeaders: endHeaders, limit: limit) {
                try headers(whole, now: now)
            }
        case .data(let streamID, let data, let endStream, let flowControlledLength):
            if flowControlledLength == 0, !endStream { try countControlFrame(now: now) }
            if let increment = flow.received(flowControlledLength, receiveWindow: Self.receiveWindow) {
                write { HTTP2Wire.writeWindowUpdate(into: &$0, streamID: 0, increment: increment) }
            }
            guard streams.contains(streamID) else { return }
            streams.update(streamID) { stream in
                let limit = stream.isChannelRequest ? Self.maximumChannelResponseBody : Self.maximumResponseBody
                if stream.body.count < limit {
                    stream.body.append(contentsOf: data.readableBytesView.prefix(limit - stream.body.count))
                }
            }
            if endStream { complete(streamID, now: now) }
        case .rstStream(let streamID, let code):
            streamWasReset(streamID, failure: .streamReset("APNs reset the stream (\(HTTP2Wire.ErrorCode.describe(code)))"))
        case .settings(let settings):
            try countControlFrame(now: now)
            try apply(settings)
        case .settingsAck:
            break
        case .ignored:
            try countControlFrame(now: now)
        case .ping(let data, let ack):
            if ack {
                liveness.pingAnswered()
            } else {
                try countControlFrame(now: now)
                write { HTTP2Wire.writePing(into: &$0, data: data, ack: true) }
            }
        case .goAway(let lastStreamID, let code, let debugData):
            goAway(lastStreamID: lastStreamID, code: code, debugData: debugData)
        case .windowUpdate(let streamID, let increment):
            try windowUpdate(streamID: streamID, increment: increment)
        case .pushPromise:
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server pushed although push is disabled")
        case .continuation:
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server sent CONTINUATION without HEADERS")
        }
    }

    private mutating func countControlFrame(now: NIODeadline) throws(HTTP2ConnectionError) {
        try liveness.countControlFrame(now: now, limit: configuration.maximumControlFrames, window: configuration.controlFrameWindow)
    }

    /// Every header block is decoded, even for a stream already finished, to keep the HPACK
    /// dynamic table in step with the server's (RFC 7541 §2.2).
    private mutating func headers(_ whole: Codec.HeaderBlock, now: NIODeadline) throws(HTTP2ConnectionError) {
        let headers = try codec.decode(whole.block)
        let (streamID, endStream) = (whole.streamID, whole.endStream)
        guard streams.contains(streamID) else { return }
        var interim = false
        streams.update(streamID) { stream in
            guard stream.status == nil else { return }
            let status = headers.first(name: ":status").flatMap { Int($0) }
            // 1xx answers are interim (RFC 9110 §15.2): the final one follows.
            if let status, (100..<200).contains(status), !endStream {
                interim = true
                return
            }
            stream.status = status
            stream.apnsID = headers.first(name: "apns-id")
            if stream.isChannelRequest {
                stream.channelID = headers.first(name: "apns-channel-id")
                stream.requestID = headers.first(name: "apns-request-id")
            }
        }
        if !interim, endStream { complete(streamID, now: now) }
    }

    /// RFC 9113 §6.5: applies the server's settings and acknowledges them.
    private mutating func apply(_ settings: [(parameter: UInt16, value: UInt32)]) throws(HTTP2ConnectionError) {
        var streamLimit: Int?
        for (parameter, value) in settings {
            switch HTTP2Wire.Setting(rawValue: parameter) {
            case .headerTableSize:
                codec.setEncoderTableSize(Int(value))
            case .maxConcurrentStreams:
                streamLimit = Int(value)
            case .initialWindowSize:
                // §6.9.2: the change applies to every open stream's window.
                let delta = try flow.setInitialStreamWindow(value)
                guard streams.shiftSendWindows(by: delta) else {
                    throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's initial window overflows a stream's")
                }
            case .maxFrameSize:
                try flow.setMaxFrameSize(value)
            case .enablePush:
                guard value <= 1 else {
                    throw HTTP2ConnectionError(code: .protocolError, detail: "the server's ENABLE_PUSH is neither 0 nor 1")
                }
            case .maxHeaderListSize, nil:
                break
            }
        }
        write { HTTP2Wire.writeSettingsAck(into: &$0) }
        if let streamLimit {
            streams.setServerLimit(streamLimit)
        } else if phase == .awaitingSettings {
            streams.setServerLimit(Self.defaultStreamLimit)
        }
        if phase == .awaitingSettings {
            guard streams.serverLimit > 0 else {
                // A server that allows no streams from the start is not usable: the pool backs
                // off and connects again.
                close(.connectFailed("the server allows no streams (MAX_CONCURRENT_STREAMS 0)"))
                return
            }
            becomeReady()
        } else if streams.serverLimit == 0, phase == .ready {
            // RFC 9113 §5.1.2 lets a server stop new streams this way; what waits goes elsewhere.
            beginDraining(failingWaitingWith: .unprocessed("the server allows no more streams on this connection"))
        }
        resumeBlocked()
    }

    /// RFC 9113 §6.9: a zero increment is a protocol error, a window past 2^31-1 a flow-control
    /// error; on a stream both end only that stream.
    private mutating func windowUpdate(streamID: Int, increment: Int) throws(HTTP2ConnectionError) {
        if streamID == 0 {
            try flow.growConnectionWindow(by: increment)
        } else {
            guard streams.contains(streamID) else { return }
            if increment == 0 {
                resetStream(streamID, code: .protocolError, failure: .streamReset("APNs sent a zero window update"))
                return
            }
            var overflow = false
            streams.update(streamID) { stream in
                if stream.sendWindow + increment > HTTP2Wire.maxWindowSize {
                    overflow = true
                } else {
                    stream.sendWindow += increment
                }
            }
            if overflow {
                resetStream(streamID, code: .flowControlError, failure: .streamReset("APNs overflowed a stream window"))
                return
            }
        }
        resumeBlocked()
    }

    /// Streams above the GOAWAY's last-stream-id were not processed and may be retried
    /// elsewhere; those below finish here (docs/apns.md).
    private mutating func goAway(lastStreamID: Int, code: UInt32, debugData: ByteBuffer) {
        let reason = Self.goAwayReason(debugData) ?? HTTP2Wire.ErrorCode.describe(code)
        record(.goAway(reason: reason))
        let unprocessed = APNSClientError.unprocessed("APNs closed the connection (\(reason)) before processing this stream")
        failStreams(above: lastStreamID, with: unprocessed)
        beginDraining(failingWaitingWith: unprocessed)
    }

    static func goAwayReason(_ buffer: ByteBuffer) -> String? {
        guard buffer.readableBytes > 0, buffer.readableBytes <= 4096,
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any],
            let reason = object["reason"] as? String
        else { return nil }
        // Logged: keep it short and printable.
        return String(reason.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7f }.prefix(64))
    }

    /// RFC 9113 §5.4.1: a connection error ends the connection with a GOAWAY naming it.
    mutating func connectionError(_ error: HTTP2ConnectionError) {
        write { HTTP2Wire.writeGoAway(into: &$0, lastStreamID: 0, code: error.code) }
        close(.connectionLost("HTTP/2 protocol error: \(error.detail)"))
    }
}
