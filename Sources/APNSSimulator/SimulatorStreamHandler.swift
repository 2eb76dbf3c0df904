import APNSCore
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 stream: collects a request (HEADERS, then DATA until END_STREAM), has it
/// judged, and answers as APNs does (docs/apns.md "Responses"): 200 is HEADERS only (`:status`,
/// `apns-id`); an error adds `content-type: application/json` and a DATA frame with
/// `{"reason": ...}`.
final class SimulatorStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: SimulatorConnection
    private var context: ChannelHandlerContext?
    private var headers: [(String, String)]?
    private var body: [UInt8] = []
    private var requestNumber: Int?
    private var complete = false
    /// Above a GOAWAY's last-stream-id: no answer, and no longer counted as open.
    private var ignored = false

    init(connection: SimulatorConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        connection.streamOpened()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        if !ignored { connection.streamClosed() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if headers == nil {
                start(frame.headers, context: context)
            }
            // A second HEADERS is trailers: only its END_STREAM matters.
            if frame.endStream { finish() }
        case .data(let frame):
            guard headers != nil, !complete else { return }
            if case .byteBuffer(let buffer) = frame.data {
                // Keep one byte past the largest limit: enough to answer 413, bounded memory.
                let room = SimulatorRequestValidator.maximumPayloadBytes + 1 - body.count
                if room > 0 { body.append(contentsOf: buffer.readableBytesView.prefix(room)) }
            }
            if frame.endStream { finish() }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The request's headers: flattened for the validator, and checked for the HPACK rule
    /// (docs/apns.md "Requests", HPACK: `:path` and `authorization` literal without indexing). A
    /// header decoded as literal with incremental indexing, or from the dynamic table, comes
    /// out `.indexable`.
    private func start(_ block: HPACKHeaders, context: ChannelHandlerContext) {
        var list = [(String, String)]()
        list.reserveCapacity(block.count)
        var indexed = false
        for header in block {
            if header.indexable == .indexable, header.name == ":path" || header.name == "authorization" {
                indexed = true
            }
            list.append((header.name, header.value))
        }
        headers = list
        let streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .rootStream
        requestNumber = connection.requestStarted(streamID: streamID, pathOrAuthorizationIndexed: indexed)
        if requestNumber == nil, !ignored {
            ignored = true
            complete = true
            connection.streamClosed()
        }
    }

    /// END_STREAM arrived: judge the request and answer, now or after the scripted delay.
    private func finish() {
        guard !complete, let headers, let requestNumber, let context else { return }
        complete = true
        let stats = connection.engine.stats
        guard connection.shouldAnswer(requestNumber: requestNumber) else {
            stats.leftUnanswered()
            return
        }
        let now = Date()
        let verdict = connection.validate(headers: headers, body: body, now: now)
        if verdict.notification != nil, connection.engine.shouldStall() {
            // The stream stays open and silent; the client's deadline must deal with it.
            stats.stalled(apnsID: headers.first { $0.0 == "apns-id" }?.1)
            return
        }
        let response = connection.engine.respond(to: verdict, receivedAt: now)
        body = []
        if let delay = connection.engine.faults.responseDelay, delay > .zero {
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.send(response, requestNumber: requestNumber)
            }
        } else {
            send(response, requestNumber: requestNumber)
        }
    }

    private func send(_ response: SimulatorResponse, requestNumber: Int) {
        // The stream may have been reset while a delayed answer waited.
        guard let context else { return }
        guard !connection.isSilent else {
            connection.engine.stats.leftUnanswered()
            return
        }
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: String(response.status))
        // Unique per response: keep it out of the client's dynamic table.
        headers.add(
            name: response.isChannelRequest ? "apns-request-id" : "apns-id", value: response.apnsID.canonicalString,
            indexing: .nonIndexable)
        if let channelID = response.channelID {
            headers.add(name: "apns-channel-id", value: channelID, indexing: .nonIndexable)
        }
        if let body = response.body {
            headers.add(name: "content-type", value: "application/json")
            context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true)
            context.writeAndFlush(wrapOutboundOut(.data(data)), promise: nil)
        } else {
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
        }
        connection.engine.stats.answered(status: response.status, reason: response.reason)
        connection.answered(requestNumber: requestNumber)
    }
}

@available(*, unavailable)
extension SimulatorStreamHandler: Sendable {}
