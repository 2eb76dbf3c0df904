import APNSCore
import NIOCore
import NIOHPACK

extension APNSConnectionStateMachine {
    /// Bytes to frames and headers both ways: the frame reader, HPACK for requests (with the
    /// indexing choices kept across streams) and for answers, and a header block still waiting
    /// for its CONTINUATION frames.
    struct Codec {
        /// A complete header block and the stream it belongs to.
        struct HeaderBlock {
            var streamID: Int
            var block: ByteBuffer
            var endStream: Bool
        }

        private var reader = HTTP2FrameReader()
        private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        private var encoder = HPACKRequestEncoder()
        private var indexing = HeaderIndexingState()
        /// HEADERS waiting for their CONTINUATION frames.
        private(set) var pendingHeaderBlock: HeaderBlock?

        mutating func append(_ bytes: ByteBuffer) {
            reader.append(bytes)
        }

        mutating func nextFrame() throws(HTTP2ConnectionError) -> ServerFrame? {
            try reader.next()
        }

        /// Writes a request's HEADERS frame. A request's header block is well under 1 KB and
        /// every server takes 16 KB frames (RFC 9113 §4.2), so it always fits one frame.
        mutating func writeHeaders(
            of head: Request.Head, streamID: Int, authority: String, providerToken: String?, authorization: String?,
            into outbound: inout ByteBuffer
        ) {
            let frame = HTTP2Wire.beginFrame(into: &outbound, type: .headers, flags: HTTP2Wire.Flag.endHeaders, streamID: streamID)
            encoder.beginBlock(into: &outbound)
            encoder.encode(APNSHeader(name: ":authority", value: authority, indexing: .incremental), into: &outbound)
            switch head {
            case .notification(let notification):
                encoder.encodeRequest(of: notification, authorization: authorization, indexing: &indexing, into: &outbound)
            case .batched(let batch, let index):
                encoder.encodeRequest(of: batch.notifications[index], authorization: authorization, indexing: &indexing, into: &outbound)
            case .channel(let channelRequest):
                encoder.encode(channelRequest.requestHeaders(providerToken: providerToken), into: &outbound)
            }
            HTTP2Wire.endFrame(in: &outbound, startedAt: frame)
        }

        /// SETTINGS_HEADER_TABLE_SIZE: the server's decoder table for what Herald sends.
        mutating func setEncoderTableSize(_ size: Int) {
            encoder.setMaxTableSize(size)
        }

        /// Every header block is decoded, even for a stream already finished, to keep the HPACK
        /// dynamic table in step with the server's (RFC 7541 §2.2).
        mutating func decode(_ block: ByteBuffer) throws(HTTP2ConnectionError) -> HPACKHeaders {
            var block = block
            do {
                return try decoder.decodeHeaders(from: &block)
            } catch {
                throw HTTP2ConnectionError(code: .compressionError, detail: "the server's header block did not decode")
            }
        }

        /// A HEADERS frame: the block when it is whole, nil when CONTINUATION frames follow.
        mutating func headers(
            streamID: Int, block: ByteBuffer, endStream: Bool, endHeaders: Bool, limit: Int
        ) throws(HTTP2ConnectionError) -> HeaderBlock? {
            let whole = HeaderBlock(streamID: streamID, block: block, endStream: endStream)
            if endHeaders { return whole }
            guard block.readableBytes <= limit else {
                throw HTTP2ConnectionError(code: .enhanceYourCalm, detail: "the server sent an oversized header block")
            }
            pendingHeaderBlock = whole
            return nil
        }

        /// While a header block is open, RFC 9113 §6.10 allows nothing but its CONTINUATION
        /// frames: the block when it is whole, nil while more are due.
        mutating func continuation(of frame: ServerFrame, limit: Int) throws(HTTP2ConnectionError) -> HeaderBlock? {
            guard let pending = pendingHeaderBlock else { return nil }
            guard case .continuation(let streamID, let block, let endHeaders) = frame, streamID == pending.streamID else {
                throw HTTP2ConnectionError(code: .protocolError, detail: "the server interrupted a header block")
            }
            guard pending.block.readableBytes + block.readableBytes <= limit else {
                throw HTTP2ConnectionError(code: .enhanceYourCalm, detail: "the server sent a header block over \(limit) bytes")
            }
            // Taken out first so that the append does not copy the whole block each frame.
            pendingHeaderBlock = nil
            var whole = pending
            whole.block.writeImmutableBuffer(block)
            if endHeaders { return whole }
            pendingHeaderBlock = whole
            return nil
        }
    }
}
