import APNSCore
import DequeModule
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOTLS

/// Setup (preface, settings, deadlines), keepalive, draining and teardown.
extension APNSConnectionHandler {
    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        outbound = context.channel.allocator.buffer(capacity: 64 * 1024)
        // TLS, ALPN and the server's SETTINGS must all arrive within the connect timeout.
        setupDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: setupTimeout) { [self] in
            guard let context = self.context, !settingsReceived else { return }
            fail(with: .connectFailed("TLS and HTTP/2 setup took longer than the connect timeout"), context: context)
        }
        if context.channel.isActive { sendPreface() }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendPreface()
        context.fireChannelActive()
    }

    /// RFC 9113 §3.4: the client's preface, its SETTINGS, and a connection window as large
    /// as each stream's. TLS holds them until its handshake is done.
    private func sendPreface() {
        guard !prefaceSent else { return }
        prefaceSent = true
        outbound.writeStaticString(HTTP2Wire.preface)
        HTTP2Wire.writeSettings(into: &outbound, Self.settings)
        HTTP2Wire.writeWindowUpdate(into: &outbound, streamID: 0, increment: Self.receiveWindow - HTTP2Wire.defaultWindowSize)
        flushNow()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { startWaiting(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent, negotiated != "h2" {
            fail(with: .alpnNotNegotiated, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("APNs connection error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        fail(with: closeReason ?? .connectionLost("the connection failed"), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let reason = closeReason ?? .connectionLost("the connection closed before APNs answered")
        closeReason = reason
        idleCheck?.cancel()
        pingDeadline?.cancel()
        setupDeadline?.cancel()
        ready.fail(reason)
        let open = streams
        streams.removeAll()
        for (_, stream) in open { stream.completion.fail(reason) }
        while let request = waiting.popFirst() { request.completion.fail(reason) }
        status.withLockedValue {
            $0.phase = .closed
            $0.inFlight = 0
        }
        self.context = nil
        context.fireChannelInactive()
    }

    /// No new streams; the open ones finish, then the connection closes. Requests not yet
    /// started fail with `error` so the pool sends them elsewhere.
    func beginDraining(failingWaitingWith error: APNSClientError) {
        draining = true
        status.withLockedValue { $0.phase = .draining }
        while let request = waiting.popFirst() { request.completion.fail(error) }
        publishStatus()
    }

    func fail(with error: APNSClientError, context: ChannelHandlerContext) {
        if closeReason == nil { closeReason = error }
        ready.fail(error)
        context.close(promise: nil)
    }

    /// APNS.md "Connection": PING an idle connection; one that does not answer is dead.
    func scheduleIdleCheck(context: ChannelHandlerContext) {
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(in: idlePingInterval) { [self] in
            guard let context = self.context else { return }
            if NIODeadline.now() - lastActivity >= idlePingInterval, pingDeadline == nil {
                HTTP2Wire.writePing(into: &outbound, data: 1, ack: false)
                flushNow()
                pingDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: pingTimeout) { [self] in
                    guard let context = self.context else { return }
                    logger.warning("APNs connection did not answer a PING; closing it")
                    fail(with: .pingTimeout, context: context)
                }
            }
            scheduleIdleCheck(context: context)
        }
    }
}
