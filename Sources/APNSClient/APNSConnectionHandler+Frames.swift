import APNSCore
import DequeModule
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK

/// What the server sends: answers, settings, window updates, pings, resets and GOAWAY.
extension APNSConnectionHandler {
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only what the server sends proves the connection alive.
        lastActivity = .now()
        reader.append(unwrapInboundIn(data))
        do throws(HTTP2ConnectionError) {
            while closeReason == nil, let frame = try reader.next() {
                try handle(frame, context: context)
            }
        } catch {
            connectionError(error, context: context)
        }
        scheduleFlush(context: context)
    }

    private func handle(_ frame: ServerFrame, context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
        // RFC 9113 §6.10: nothing may come between HEADERS and their CONTINUATION frames.
        if let pending = pendingHeaderBlock {
            guard case .continuation(let streamID, let block, let endHeaders) = frame, streamID == pending.streamID else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server interrupted a header block")
            }
            var whole = pending.block
            whole.writeImmutableBuffer(block)
            pendingHeaderBlock = endHeaders ? nil : (streamID, whole, pending.endStream)
            if endHeaders { try headers(streamID: streamID, block: whole, endStream: pending.endStream, context: context) }
            return
        }
        switch frame {
        case .headers(let streamID, let block, let endStream, let endHeaders):
            if endHeaders {
                try headers(streamID: streamID, block: block, endStream: endStream, context: context)
            } else {
                pendingHeaderBlock = (streamID, block, endStream)
            }
        case .data(let streamID, let data, let endStream, let flowControlledLength):
            receive(flowControlledLength)
            guard streams[streamID] != nil else { return }
            if streams[streamID]!.body.count < Self.maximumResponseBody {
                streams[streamID]!.body.append(contentsOf: data.readableBytesView.prefix(Self.maximumResponseBody))
            }
            if endStream { complete(streamID, context: context) }
        case .rstStream(let streamID, let code):
            guard let stream = streams.removeValue(forKey: streamID) else { return }
            stream.completion.fail(.streamReset("APNs reset the stream (\(HTTP2Wire.ErrorCode.describe(code)))"))
            startWaiting(context: context)
        case .settings(let settings):
            try apply(settings, context: context)
        case .settingsAck, .ignored:
            break
        case .ping(let data, let ack):
            if ack {
                pingDeadline?.cancel()
                pingDeadline = nil
            } else {
                HTTP2Wire.writePing(into: &outbound, data: data, ack: true)
            }
        case .goAway(let lastStreamID, let code, let debugData):
            goAway(lastStreamID: lastStreamID, code: code, debugData: debugData, context: context)
        case .windowUpdate(let streamID, let increment):
            try windowUpdate(streamID: streamID, increment: increment)
        case .pushPromise:
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server pushed although push is disabled")
        case .continuation:
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server sent CONTINUATION without HEADERS")
        }
    }

    /// Every header block is decoded, even for a stream already finished, to keep the HPACK
    /// dynamic table in step with the server's (RFC 7541 §2.2).
    private func headers(streamID: Int, block: ByteBuffer, endStream: Bool, context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
        var block = block
        let headers: HPACKHeaders
        do {
            headers = try decoder.decodeHeaders(from: &block)
        } catch {
            throw HTTP2ConnectionError(code: .compressionError, detail: "the server's header block did not decode")
        }
        guard streams[streamID] != nil else { return }
        if streams[streamID]!.status == nil {
            let status = headers.first(name: ":status").flatMap { Int($0) }
            // 1xx answers are interim (RFC 9110 §15.2): the final one follows.
            if let status, (100..<200).contains(status), !endStream { return }
            streams[streamID]!.status = status
            streams[streamID]!.apnsID = headers.first(name: "apns-id")
        }
        if endStream { complete(streamID, context: context) }
    }

    private func complete(_ streamID: Int, context: ChannelHandlerContext) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if stream.unsent != nil {
            // RFC 9113 §8.1: the answer came before the whole body; close our half too.
            HTTP2Wire.writeRSTStream(into: &outbound, streamID: streamID, code: .cancel)
        }
        let response = APNSResponse(status: stream.status ?? 0, apnsIDHeader: stream.apnsID, body: stream.body)
        // APNS.md "Connection": with token auth, many streams only after an accepted request.
        if response.status == 200, !authenticated { authenticated = true }
        metrics.latency.recordNanoseconds((NIODeadline.now() - stream.started).nanoseconds)
        stream.completion.succeed(response)
        startWaiting(context: context)
    }

    /// RFC 9113 §6.5: applies the server's settings and acknowledges them.
    private func apply(_ settings: [(parameter: UInt16, value: UInt32)], context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
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
                for streamID in streams.keys { streams[streamID]!.sendWindow += delta }
            case .maxFrameSize:
                guard (HTTP2Wire.defaultMaxFrameSize...0xff_ffff).contains(Int(value)) else {
                    throw HTTP2ConnectionError(code: .protocolError, detail: "the server's maximum frame size is out of range")
                }
                maxFrameSize = Int(value)
            case .enablePush, .maxHeaderListSize, nil:
                break
            }
        }
        HTTP2Wire.writeSettingsAck(into: &outbound)
        if let streamLimit {
            serverStreamLimit = streamLimit
        } else if !settingsReceived {
            serverStreamLimit = Self.defaultStreamLimit
        }
        if !settingsReceived {
            settingsReceived = true
            setupDeadline?.cancel()
            status.withLockedValue { $0.phase = .ready }
            ready.succeed()
            // Keepalive starts once the connection is up; setup has its own deadline.
            scheduleIdleCheck(context: context)
        }
        resumeBlocked()
        startWaiting(context: context)
    }

    private func windowUpdate(streamID: Int, increment: Int) throws(HTTP2ConnectionError) {
        if streamID == 0 {
            guard increment > 0, connectionSendWindow + increment <= HTTP2Wire.maxWindowSize else {
                throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's connection window update is invalid")
            }
            connectionSendWindow += increment
        } else {
            guard streams[streamID] != nil else { return }
            streams[streamID]!.sendWindow += increment
        }
        resumeBlocked()
    }

    /// Gives the server back the connection window its DATA used (RFC 9113 §6.9); streams keep
    /// their 1 MiB, far more than any answer.
    private func receive(_ length: Int) {
        receivedSinceWindowUpdate += length
        guard receivedSinceWindowUpdate >= Self.receiveWindow / 2 else { return }
        HTTP2Wire.writeWindowUpdate(into: &outbound, streamID: 0, increment: receivedSinceWindowUpdate)
        receivedSinceWindowUpdate = 0
    }

    /// APNS.md "Connection": streams above the GOAWAY's last-stream-id were not processed and
    /// may be retried elsewhere; those below finish here.
    private func goAway(lastStreamID: Int, code: UInt32, debugData: ByteBuffer, context: ChannelHandlerContext) {
        let reason = Self.goAwayReason(debugData) ?? HTTP2Wire.ErrorCode.describe(code)
        logger.notice("APNs sent GOAWAY; draining the connection", metadata: ["apns.goaway.reason": "\(reason)"])
        metrics.goAways.increment()
        let unprocessed = APNSClientError.unprocessed("APNs closed the connection (\(reason)) before processing this stream")
        for (id, stream) in streams where id > lastStreamID {
            streams.removeValue(forKey: id)
            stream.completion.fail(unprocessed)
        }
        beginDraining(failingWaitingWith: unprocessed)
    }

    static func goAwayReason(_ buffer: ByteBuffer) -> String? {
        guard buffer.readableBytes > 0,
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }

    /// RFC 9113 §5.4.1: a connection error ends the connection with a GOAWAY naming it.
    func connectionError(_ error: HTTP2ConnectionError, context: ChannelHandlerContext) {
        logger.warning("APNs connection protocol error; closing it", metadata: ["error": "\(error.detail)"])
        HTTP2Wire.writeGoAway(into: &outbound, lastStreamID: 0, code: error.code)
        flushNow()
        fail(with: .connectionLost("HTTP/2 protocol error: \(error.detail)"), context: context)
    }
}
