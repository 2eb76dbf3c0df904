import APNSCore
import Foundation
import NIOCore
import NIOHPACK

/// What the server sends: answers, settings, window updates, pings, resets and GOAWAY, with
/// RFC 9113's rules and limits on what a peer may send.
extension APNSConnectionStateMachine {
    /// Bytes arrived from the server.
    mutating func read(_ bytes: ByteBuffer, now: NIODeadline, writable: Bool) {
        guard phase != .closed, closeReason == nil else { return }
        // Only what the server sends proves the connection alive.
        lastActivity = now
        reader.append(bytes)
        do throws(HTTP2ConnectionError) {
            while closeReason == nil, let frame = try reader.next() {
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
        if let pending = pendingHeaderBlock {
            guard case .continuation(let streamID, let block, let endHeaders) = frame, streamID == pending.streamID else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server interrupted a header block")
            }
            guard pending.block.readableBytes + block.readableBytes <= configuration.maximumHeaderBlock else {
                throw HTTP2ConnectionError(
                    code: .enhanceYourCalm, detail: "the server sent a header block over \(configuration.maximumHeaderBlock) bytes")
            }
            // Taken out first so that the append does not copy the whole block each frame.
            pendingHeaderBlock = nil
            var whole = pending.block
            whole.writeImmutableBuffer(block)
            if endHeaders {
                try headers(streamID: streamID, block: whole, endStream: pending.endStream, now: now)
            } else {
                pendingHeaderBlock = (streamID, whole, pending.endStream)
            }
            return
        }
        switch frame {
        case .headers(let streamID, let block, let endStream, let endHeaders):
            if endHeaders {
                try headers(streamID: streamID, block: block, endStream: endStream, now: now)
            } else {
                guard block.readableBytes <= configuration.maximumHeaderBlock else {
                    throw HTTP2ConnectionError(code: .enhanceYourCalm, detail: "the server sent an oversized header block")
                }
                pendingHeaderBlock = (streamID, block, endStream)
            }
        case .data(let streamID, let data, let endStream, let flowControlledLength):
            if flowControlledLength == 0, !endStream { try countControlFrame(now: now) }
            receive(flowControlledLength)
            guard hasStream(streamID) else { return }
            updateStream(streamID) { stream in
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
                pingSentAt = nil
                suspect = false
            } else {
                try countControlFrame(now: now)
                HTTP2Wire.writePing(into: &outbound, data: data, ack: true)
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

    /// Frames that cost work and carry no answer (PING, SETTINGS, empty DATA, ignored types)
    /// are limited per window, so that a flood cannot keep the event loop busy acknowledging
    /// (the "control frame flood" and "empty frames" attacks).
    private mutating func countControlFrame(now: NIODeadline) throws(HTTP2ConnectionError) {
        if now - controlFrames.windowStart >= configuration.controlFrameWindow {
            controlFrames = (now, 0)
        }
        controlFrames.count += 1
        guard controlFrames.count <= configuration.maximumControlFrames else {
            throw HTTP2ConnectionError(code: .enhanceYourCalm, detail: "the server sent too many control frames")
        }
    }

    /// Every header block is decoded, even for a stream already finished, to keep the HPACK
    /// dynamic table in step with the server's (RFC 7541 §2.2).
    private mutating func headers(streamID: Int, block: ByteBuffer, endStream: Bool, now: NIODeadline) throws(HTTP2ConnectionError) {
        var block = block
        let headers: HPACKHeaders
        do {
            headers = try decoder.decodeHeaders(from: &block)
        } catch {
            throw HTTP2ConnectionError(code: .compressionError, detail: "the server's header block did not decode")
        }
        guard hasStream(streamID) else { return }
        var interim = false
        updateStream(streamID) { stream in
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
                encoder.setMaxTableSize(Int(value))
            case .maxConcurrentStreams:
                streamLimit = Int(value)
            case .initialWindowSize:
                guard Int(value) <= HTTP2Wire.maxWindowSize else {
                    throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's initial window is too large")
                }
                // §6.9.2: the change applies to every open stream's window.
                let delta = Int(value) - initialStreamWindow
                initialStreamWindow = Int(value)
                guard shiftStreamWindows(by: delta) else {
                    throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's initial window overflows a stream's")
                }
            case .maxFrameSize:
                guard (HTTP2Wire.defaultMaxFrameSize...0xff_ffff).contains(Int(value)) else {
                    throw HTTP2ConnectionError(code: .protocolError, detail: "the server's maximum frame size is out of range")
                }
                maxFrameSize = Int(value)
            case .enablePush:
                guard value <= 1 else {
                    throw HTTP2ConnectionError(code: .protocolError, detail: "the server's ENABLE_PUSH is neither 0 nor 1")
                }
            case .maxHeaderListSize, nil:
                break
            }
        }
        HTTP2Wire.writeSettingsAck(into: &outbound)
        if let streamLimit {
            serverStreamLimit = streamLimit
        } else if phase == .awaitingSettings {
            serverStreamLimit = Self.defaultStreamLimit
        }
        if phase == .awaitingSettings {
            guard serverStreamLimit > 0 else {
                // A server that allows no streams from the start is not usable: the pool backs
                // off and connects again.
                close(.connectFailed("the server allows no streams (MAX_CONCURRENT_STREAMS 0)"))
                return
            }
            becomeReady()
        } else if serverStreamLimit == 0, phase == .ready {
            // RFC 9113 §5.1.2 lets a server stop new streams this way; what waits goes elsewhere.
            beginDraining(failingWaitingWith: .unprocessed("the server allows no more streams on this connection"))
        }
        resumeBlocked()
    }

    /// RFC 9113 §6.9: a zero increment is a protocol error, a window past 2^31-1 a flow-control
    /// error; on a stream both end only that stream.
    private mutating func windowUpdate(streamID: Int, increment: Int) throws(HTTP2ConnectionError) {
        if streamID == 0 {
            guard increment > 0 else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server's connection window update is zero")
            }
            guard connectionSendWindow + increment <= HTTP2Wire.maxWindowSize else {
                throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's connection window update overflows")
            }
            connectionSendWindow += increment
        } else {
            guard hasStream(streamID) else { return }
            if increment == 0 {
                resetStream(streamID, code: .protocolError, failure: .streamReset("APNs sent a zero window update"))
                return
            }
            var overflow = false
            updateStream(streamID) { stream in
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

    /// Gives the server back the connection window its DATA used (RFC 9113 §6.9); streams keep
    /// their 1 MiB, far more than any answer.
    private mutating func receive(_ length: Int) {
        receivedSinceWindowUpdate += length
        guard receivedSinceWindowUpdate >= Self.receiveWindow / 2 else { return }
        HTTP2Wire.writeWindowUpdate(into: &outbound, streamID: 0, increment: receivedSinceWindowUpdate)
        receivedSinceWindowUpdate = 0
    }

    /// Streams above the GOAWAY's last-stream-id were not processed and may be retried
    /// elsewhere; those below finish here (docs/apns.md).
    private mutating func goAway(lastStreamID: Int, code: UInt32, debugData: ByteBuffer) {
        let reason = Self.goAwayReason(debugData) ?? HTTP2Wire.ErrorCode.describe(code)
        record(.goAway(reason: reason))
        let unprocessed = APNSClientError.unprocessed("APNs closed the connection (\(reason)) before processing this stream")
        failStreamsAbove(lastStreamID, with: unprocessed)
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
        HTTP2Wire.writeGoAway(into: &outbound, lastStreamID: 0, code: error.code)
        close(.connectionLost("HTTP/2 protocol error: \(error.detail)"))
    }
}
