import NIOCore

extension APNSConnectionStateMachine {
    /// HTTP/2 flow control for an APNs client (RFC 9113 §5.2, §6.9): the windows Herald may
    /// send into, the frame size the server takes, and the connection window Herald gives back.
    /// Each stream's own send window lives with the stream (`StreamTable.Stream`).
    struct FlowControl {
        /// What the whole connection may still send.
        private(set) var connectionWindow = HTTP2Wire.defaultWindowSize
        /// The window each new stream starts with (the server's SETTINGS_INITIAL_WINDOW_SIZE).
        private(set) var initialStreamWindow = HTTP2Wire.defaultWindowSize
        private(set) var maxFrameSize = HTTP2Wire.defaultMaxFrameSize
        /// DATA received since the last WINDOW_UPDATE Herald sent.
        private var receivedSinceUpdate = 0

        /// Writes as much of a request body as the windows allow and returns the rest, which
        /// waits for a WINDOW_UPDATE.
        mutating func writeBody(
            _ body: ArraySlice<UInt8>, streamID: Int, window: inout Int, into outbound: inout ByteBuffer
        ) -> ArraySlice<UInt8>? {
            var rest = body
            while true {
                let length = min(rest.count, connectionWindow, window, maxFrameSize)
                // An empty body still ends the stream; a non-empty one needs some window.
                guard length == rest.count || length > 0 else { return rest }
                HTTP2Wire.writeData(into: &outbound, streamID: streamID, bytes: rest.prefix(length), endStream: length == rest.count)
                connectionWindow -= length
                window -= length
                rest = rest.dropFirst(length)
                if rest.isEmpty { return nil }
            }
        }

        /// The server grew the connection window: a zero increment is a protocol error, a window
        /// past 2^31-1 a flow-control error.
        mutating func growConnectionWindow(by increment: Int) throws(HTTP2ConnectionError) {
            guard increment > 0 else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server's connection window update is zero")
            }
            guard connectionWindow + increment <= HTTP2Wire.maxWindowSize else {
                throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's connection window update overflows")
            }
            connectionWindow += increment
        }

        /// SETTINGS_INITIAL_WINDOW_SIZE: returns how much every open stream's window moves (§6.9.2).
        mutating func setInitialStreamWindow(_ value: UInt32) throws(HTTP2ConnectionError) -> Int {
            guard Int(value) <= HTTP2Wire.maxWindowSize else {
                throw HTTP2ConnectionError(code: .flowControlError, detail: "the server's initial window is too large")
            }
            let delta = Int(value) - initialStreamWindow
            initialStreamWindow = Int(value)
            return delta
        }

        /// SETTINGS_MAX_FRAME_SIZE, which RFC 9113 §6.5.2 bounds on both sides.
        mutating func setMaxFrameSize(_ value: UInt32) throws(HTTP2ConnectionError) {
            guard (HTTP2Wire.defaultMaxFrameSize...0xff_ffff).contains(Int(value)) else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server's maximum frame size is out of range")
            }
            maxFrameSize = Int(value)
        }

        /// DATA arrived: once half the receive window is used, the increment to give back on
        /// the connection (streams keep their 1 MiB, far more than any answer).
        mutating func received(_ length: Int, receiveWindow: Int) -> Int? {
            receivedSinceUpdate += length
            guard receivedSinceUpdate >= receiveWindow / 2 else { return nil }
            defer { receivedSinceUpdate = 0 }
            return receivedSinceUpdate
        }
    }
}
