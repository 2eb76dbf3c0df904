import NIOCore

/// A connection error of RFC 9113 §5.4.1: the connection is closed with a GOAWAY carrying `code`.
struct HTTP2ConnectionError: Error, Equatable {
    var code: HTTP2Wire.ErrorCode
    var detail: String
}

/// What the server sent, one frame at a time, with its payload checked against RFC 9113 §6.
enum ServerFrame {
    case data(streamID: Int, data: ByteBuffer, endStream: Bool, flowControlledLength: Int)
    case headers(streamID: Int, block: ByteBuffer, endStream: Bool, endHeaders: Bool)
    case continuation(streamID: Int, block: ByteBuffer, endHeaders: Bool)
    case rstStream(streamID: Int, code: UInt32)
    case settings([(parameter: UInt16, value: UInt32)])
    case settingsAck
    case ping(UInt64, ack: Bool)
    case goAway(lastStreamID: Int, code: UInt32, debugData: ByteBuffer)
    case windowUpdate(streamID: Int, increment: Int)
    case pushPromise
    /// PRIORITY and frame types this client does not know: RFC 9113 §4.1 says to ignore them.
    case ignored
}

/// Splits the bytes read from TLS into frames without copying their payloads.
struct HTTP2FrameReader {
    /// The largest frame payload Herald accepts: its SETTINGS_MAX_FRAME_SIZE, left at the default.
    let maxFrameSize = HTTP2Wire.defaultMaxFrameSize
    private var buffer: ByteBuffer?

    mutating func append(_ bytes: ByteBuffer) {
        if buffer == nil || buffer!.readableBytes == 0 {
            buffer = bytes
        } else {
            buffer!.writeImmutableBuffer(bytes)
        }
    }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws(HTTP2ConnectionError) -> ServerFrame? {
        guard var bytes = buffer, bytes.readableBytes >= HTTP2Wire.frameHeaderLength else { return nil }
        let start = bytes.readerIndex
        let length = Int(bytes.getInteger(at: start, as: UInt8.self)!) << 16 | Int(bytes.getInteger(at: start + 1, as: UInt16.self)!)
        guard length <= maxFrameSize else {
            throw HTTP2ConnectionError(code: .frameSizeError, detail: "the server sent a frame of \(length) bytes")
        }
        guard bytes.readableBytes >= HTTP2Wire.frameHeaderLength + length else { return nil }
        let type = bytes.getInteger(at: start + 3, as: UInt8.self)!
        let flags = bytes.getInteger(at: start + 4, as: UInt8.self)!
        let streamID = Int(bytes.getInteger(at: start + 5, as: UInt32.self)! & 0x7fff_ffff)
        bytes.moveReaderIndex(forwardBy: HTTP2Wire.frameHeaderLength)
        let payload = bytes.readSlice(length: length)!
        buffer = bytes.readableBytes == 0 ? nil : bytes
        guard let frameType = HTTP2Wire.FrameType(rawValue: type) else { return .ignored }
        return try Self.decode(frameType, flags: flags, streamID: streamID, payload: payload)
    }

    private static func decode(
        _ type: HTTP2Wire.FrameType, flags: UInt8, streamID: Int, payload: ByteBuffer
    ) throws(HTTP2ConnectionError) -> ServerFrame {
        var payload = payload
        switch type {
        case .data:
            try requireStream(streamID, type)
            let length = payload.readableBytes
            try removePadding(&payload, flags: flags)
            return .data(streamID: streamID, data: payload, endStream: flags & HTTP2Wire.Flag.endStream != 0, flowControlledLength: length)
        case .headers:
            try requireStream(streamID, type)
            try removePadding(&payload, flags: flags)
            if flags & HTTP2Wire.Flag.priority != 0 {
                guard payload.readableBytes >= 5 else { throw frameSize(type) }
                payload.moveReaderIndex(forwardBy: 5)
            }
            return .headers(
                streamID: streamID, block: payload, endStream: flags & HTTP2Wire.Flag.endStream != 0,
                endHeaders: flags & HTTP2Wire.Flag.endHeaders != 0)
        case .continuation:
            try requireStream(streamID, type)
            return .continuation(streamID: streamID, block: payload, endHeaders: flags & HTTP2Wire.Flag.endHeaders != 0)
        case .priority:
            return .ignored
        case .rstStream:
            try requireStream(streamID, type)
            guard payload.readableBytes == 4 else { throw frameSize(type) }
            return .rstStream(streamID: streamID, code: payload.readInteger()!)
        case .settings:
            try requireConnection(streamID, type)
            if flags & HTTP2Wire.Flag.ack != 0 {
                guard payload.readableBytes == 0 else { throw frameSize(type) }
                return .settingsAck
            }
            guard payload.readableBytes % 6 == 0 else { throw frameSize(type) }
            var settings = [(parameter: UInt16, value: UInt32)]()
            while let parameter = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
                settings.append((parameter, value))
            }
            return .settings(settings)
        case .pushPromise:
            return .pushPromise
        case .ping:
            try requireConnection(streamID, type)
            guard payload.readableBytes == 8 else { throw frameSize(type) }
            return .ping(payload.readInteger()!, ack: flags & HTTP2Wire.Flag.ack != 0)
        case .goAway:
            try requireConnection(streamID, type)
            guard payload.readableBytes >= 8 else { throw frameSize(type) }
            let lastStreamID = Int(payload.readInteger(as: UInt32.self)! & 0x7fff_ffff)
            let code = payload.readInteger(as: UInt32.self)!
            return .goAway(lastStreamID: lastStreamID, code: code, debugData: payload)
        case .windowUpdate:
            guard payload.readableBytes == 4 else { throw frameSize(type) }
            let increment = Int(payload.readInteger(as: UInt32.self)! & 0x7fff_ffff)
            return .windowUpdate(streamID: streamID, increment: increment)
        }
    }

    /// RFC 9113 §6.1: the pad length byte, then data, then that many bytes of padding.
    private static func removePadding(_ payload: inout ByteBuffer, flags: UInt8) throws(HTTP2ConnectionError) {
        guard flags & HTTP2Wire.Flag.padded != 0 else { return }
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server sent padding longer than its frame")
        }
        payload = payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padding))!
    }

    private static func requireStream(_ streamID: Int, _ type: HTTP2Wire.FrameType) throws(HTTP2ConnectionError) {
        guard streamID != 0 else {
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server sent \(type) on stream 0")
        }
    }

    private static func requireConnection(_ streamID: Int, _ type: HTTP2Wire.FrameType) throws(HTTP2ConnectionError) {
        guard streamID == 0 else {
            throw HTTP2ConnectionError(code: .protocolError, detail: "the server sent \(type) on a stream")
        }
    }

    private static func frameSize(_ type: HTTP2Wire.FrameType) -> HTTP2ConnectionError {
        HTTP2ConnectionError(code: .frameSizeError, detail: "the server sent a \(type) frame of the wrong size")
    }
}
