import NIOCore

/// The pieces of HTTP/2 (RFC 9113) an APNs client writes: the connection preface and frames,
/// appended straight into one outbound buffer so that many requests leave in one flush.
enum HTTP2Wire {
    static let preface: StaticString = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    static let frameHeaderLength = 9
    /// RFC 9113 §4.2: every peer accepts frames this large; Herald never announces more.
    static let defaultMaxFrameSize = 16_384
    static let defaultWindowSize = 65_535
    static let maxWindowSize = Int(Int32.max)
    static let maxStreamID = Int(Int32.max)

    enum FrameType: UInt8 {
        case data = 0x0
        case headers = 0x1
        case priority = 0x2
        case rstStream = 0x3
        case settings = 0x4
        case pushPromise = 0x5
        case ping = 0x6
        case goAway = 0x7
        case windowUpdate = 0x8
        case continuation = 0x9
    }

    enum Flag {
        static let endStream: UInt8 = 0x1
        static let ack: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
        static let padded: UInt8 = 0x8
        static let priority: UInt8 = 0x20
    }

    enum Setting: UInt16 {
        case headerTableSize = 0x1
        case enablePush = 0x2
        case maxConcurrentStreams = 0x3
        case initialWindowSize = 0x4
        case maxFrameSize = 0x5
        case maxHeaderListSize = 0x6
    }

    /// RFC 9113 §7.
    enum ErrorCode: UInt32 {
        case noError = 0x0
        case protocolError = 0x1
        case internalError = 0x2
        case flowControlError = 0x3
        case settingsTimeout = 0x4
        case streamClosed = 0x5
        case frameSizeError = 0x6
        case refusedStream = 0x7
        case cancel = 0x8
        case compressionError = 0x9
        case connectError = 0xa
        case enhanceYourCalm = 0xb
        case inadequateSecurity = 0xc
        case http11Required = 0xd

        /// The code's name for logs, or its number when it is not one RFC 9113 defines.
        static func describe(_ raw: UInt32) -> String {
            guard let code = ErrorCode(rawValue: raw) else { return "error 0x\(String(raw, radix: 16))" }
            return "\(code)"
        }
    }

    /// Writes a frame header; the caller writes `length` bytes of payload after it.
    static func writeFrameHeader(
        into buffer: inout ByteBuffer, length: Int, type: FrameType, flags: UInt8 = 0, streamID: Int = 0
    ) {
        buffer.writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        buffer.writeInteger(UInt16(truncatingIfNeeded: length))
        buffer.writeInteger(type.rawValue)
        buffer.writeInteger(flags)
        buffer.writeInteger(UInt32(truncatingIfNeeded: streamID) & 0x7fff_ffff)
    }

    /// Starts a frame whose length is not known yet; `endFrame` fills it in.
    static func beginFrame(into buffer: inout ByteBuffer, type: FrameType, flags: UInt8, streamID: Int) -> Int {
        let start = buffer.writerIndex
        writeFrameHeader(into: &buffer, length: 0, type: type, flags: flags, streamID: streamID)
        return start
    }

    /// Sets the length of a frame started with `beginFrame` to what was written since.
    static func endFrame(in buffer: inout ByteBuffer, startedAt start: Int) {
        let length = buffer.writerIndex - start - frameHeaderLength
        buffer.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: start)
        buffer.setInteger(UInt16(truncatingIfNeeded: length), at: start + 1)
    }

    static func writeSettings(into buffer: inout ByteBuffer, _ settings: [(Setting, UInt32)]) {
        writeFrameHeader(into: &buffer, length: settings.count * 6, type: .settings)
        for (setting, value) in settings {
            buffer.writeInteger(setting.rawValue)
            buffer.writeInteger(value)
        }
    }

    static func writeSettingsAck(into buffer: inout ByteBuffer) {
        writeFrameHeader(into: &buffer, length: 0, type: .settings, flags: Flag.ack)
    }

    static func writePing(into buffer: inout ByteBuffer, data: UInt64, ack: Bool) {
        writeFrameHeader(into: &buffer, length: 8, type: .ping, flags: ack ? Flag.ack : 0)
        buffer.writeInteger(data)
    }

    static func writeWindowUpdate(into buffer: inout ByteBuffer, streamID: Int, increment: Int) {
        writeFrameHeader(into: &buffer, length: 4, type: .windowUpdate, streamID: streamID)
        buffer.writeInteger(UInt32(increment) & 0x7fff_ffff)
    }

    static func writeRSTStream(into buffer: inout ByteBuffer, streamID: Int, code: ErrorCode) {
        writeFrameHeader(into: &buffer, length: 4, type: .rstStream, streamID: streamID)
        buffer.writeInteger(code.rawValue)
    }

    static func writeGoAway(into buffer: inout ByteBuffer, lastStreamID: Int, code: ErrorCode) {
        writeFrameHeader(into: &buffer, length: 8, type: .goAway)
        buffer.writeInteger(UInt32(lastStreamID) & 0x7fff_ffff)
        buffer.writeInteger(code.rawValue)
    }

    /// A DATA frame carrying `bytes`.
    static func writeData(into buffer: inout ByteBuffer, streamID: Int, bytes: ArraySlice<UInt8>, endStream: Bool) {
        writeFrameHeader(into: &buffer, length: bytes.count, type: .data, flags: endStream ? Flag.endStream : 0, streamID: streamID)
        buffer.writeBytes(bytes)
    }
}
