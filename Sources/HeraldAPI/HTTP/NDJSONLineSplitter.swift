import NIOCore

/// Splits a streamed body into lines without holding more than one line (plus one chunk) in
/// memory. A line longer than the limit is skipped to its end and reported, not buffered.
struct NDJSONLineSplitter {
    enum Line: Equatable {
        case text(number: Int, bytes: ByteBuffer)
        case tooLong(number: Int)
    }

    let maximumLineBytes: Int
    private var buffer = ByteBuffer()
    private var lineNumber = 0
    private var discarding = false

    init(maximumLineBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
    }

    mutating func append(_ chunk: ByteBuffer) {
        var chunk = chunk
        buffer.writeBuffer(&chunk)
    }

    /// The next complete line, or `nil` until more bytes arrive.
    mutating func nextLine() -> Line? {
        while true {
            guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.readableBytes > maximumLineBytes {
                    // Too long already: drop what we have and remember to drop the rest.
                    if !discarding { lineNumber += 1 }
                    discarding = true
                    buffer.clear()
                }
                return nil
            }
            let length = newline - buffer.readerIndex
            if discarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                discarding = false
                buffer.discardReadBytes()
                return .tooLong(number: lineNumber)
            }
            lineNumber += 1
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if buffer.readerIndex > 64 * 1024 { buffer.discardReadBytes() }
            if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
            if line.readableBytes > maximumLineBytes { return .tooLong(number: lineNumber) }
            return .text(number: lineNumber, bytes: line)
        }
    }

    /// The last line when the body does not end with a newline.
    mutating func finish() -> Line? {
        if discarding {
            discarding = false
            return .tooLong(number: lineNumber)
        }
        guard buffer.readableBytes > 0 else { return nil }
        lineNumber += 1
        let line = buffer.readSlice(length: buffer.readableBytes)!
        return line.readableBytes > maximumLineBytes ? .tooLong(number: lineNumber) : .text(number: lineNumber, bytes: line)
    }
}
