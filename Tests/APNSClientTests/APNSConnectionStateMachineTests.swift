import APNSCore
import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import APNSClient

/// The connection's protocol logic without I/O, against swift-nio-http2's server as the peer
/// (`NIOHTTP2Peer`); hostile frames a correct server would never send are written by hand.
@Suite struct APNSConnectionStateMachineTests {
    let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func aRealHTTP2ServerReadsTheRequestAndItsAnswerComesBack() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        #expect(machine.drained().contains { $0.isReady })
        machine.submit([NIOHTTP2Peer.request(7)], now: t0, writable: true)
        let frames = try peer.receive(from: &machine)
        guard case .headers(let headers) = frames.first?.payload else {
            Issue.record("no HEADERS: \(frames)")
            return
        }
        #expect(headers.headers.first(name: ":method") == "POST")
        #expect(headers.headers.first(name: ":path") == "/3/device/" + String(format: "%064x", 7))
        #expect(headers.headers.first(name: "apns-topic") == "com.example.herald")
        guard case .data(let data) = frames.last?.payload, case .byteBuffer(let body) = data.data else {
            Issue.record("no DATA: \(frames)")
            return
        }
        #expect(body.readableBytes == 64 && data.endStream)
        let streamID = frames[0].streamID
        try peer.send(
            .headers(.init(headers: [":status": "200", "apns-id": "8c3f2a1e-0000-4000-8000-000000000001"], endStream: true)), streamID: streamID)
        try peer.deliver(to: &machine, now: t0 + .milliseconds(3))
        let answers = machine.drained().compactMap(\.success)
        #expect(answers.map(\.0) == [7])
        #expect(answers.first?.1.status == 200)
        #expect(machine.inFlight == 0)
    }

    @Test func aStreamWithoutAnAnswerIsResetAtItsDeadlineAndTheConnectionIsPinged() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        _ = machine.drained()
        machine.submit([NIOHTTP2Peer.request(1)], now: t0, writable: true)
        try peer.receive(from: &machine)
        machine.tick(now: t0 + .seconds(4), writable: true)
        #expect(machine.drained().isEmpty)
        machine.tick(now: t0 + .seconds(5), writable: true)
        let effects = machine.drained()
        #expect(effects.compactMap(\.failure).map { $0.0 } == [1])
        #expect(effects.compactMap(\.failure).first?.1.reason == "Timeout")
        #expect(machine.suspect)
        let frames = try peer.receive(from: &machine)
        #expect(frames.compactMap(\.payload.resetCode) == [.cancel])
        #expect(frames.contains { $0.payload.isPing })
        // swift-nio-http2 answers the PING: the connection is trusted again.
        try peer.deliver(to: &machine, now: t0 + .seconds(5))
        #expect(!machine.suspect)
        #expect(machine.inFlight == 0)
    }

    @Test func aPingLeftUnansweredClosesTheConnectionAndFailsWhatIsOpen() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1)], now: t0, writable: true)
        machine.submit([NIOHTTP2Peer.request(2)], now: t0 + .seconds(4), writable: true)
        try peer.receive(from: &machine)
        machine.tick(now: t0 + .seconds(5), writable: true)
        _ = machine.drained()
        machine.tick(now: t0 + .seconds(7), writable: true)
        #expect(machine.drained().compactMap(\.closeError) == [.pingTimeout])
        machine.channelClosed()
        #expect(machine.drained().compactMap(\.failure).map { $0.0 } == [2])
        #expect(machine.phase == .closed(.pingTimeout))
    }

    @Test func aRequestWaitingForAStreamSlotTimesOutToo() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(maxConcurrentStreams: 1, now: t0)
        machine.submit([NIOHTTP2Peer.request(1), NIOHTTP2Peer.request(2)], now: t0, writable: true)
        #expect(try peer.receive(from: &machine).filter { if case .headers = $0.payload { true } else { false } }.count == 1)
        machine.tick(now: t0 + .seconds(5), writable: true)
        #expect(Set(machine.drained().compactMap(\.failure).map { $0.0 }) == [1, 2])
        #expect(machine.inFlight == 0)
    }

    @Test func anIdleConnectionIsPingedAndNotPingedAgainBeforeTheAnswer() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected({ $0.idlePingInterval = .seconds(60) }, now: t0)
        machine.tick(now: t0 + .seconds(59), writable: true)
        #expect(try peer.receive(from: &machine).isEmpty)
        machine.tick(now: t0 + .seconds(60), writable: true)
        machine.tick(now: t0 + .seconds(61), writable: true)
        #expect(try peer.receive(from: &machine).filter(\.payload.isPing).count == 1)
        try peer.deliver(to: &machine, now: t0 + .seconds(61))
        #expect(machine.liveness.pingSentAt == nil)
    }

    @Test func noStreamsFromTheStartIsAFailedConnect() throws {
        var (_, machine) = try NIOHTTP2Peer.connected(maxConcurrentStreams: 0, now: t0)
        let effects = machine.drained()
        #expect(!effects.contains { $0.isReady })
        #expect(effects.compactMap(\.closeError).first?.reason == "ConnectFailed")
    }

    @Test func noMoreStreamsLaterDrainsAndSendsWhatWaitsElsewhere() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(maxConcurrentStreams: 1, now: t0)
        machine.submit([NIOHTTP2Peer.request(1), NIOHTTP2Peer.request(2)], now: t0, writable: true)
        try peer.receive(from: &machine)
        _ = machine.drained()
        try peer.send(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 0)])))
        try peer.deliver(to: &machine, now: t0)
        let failures = machine.drained().compactMap(\.failure)
        #expect(failures.map { $0.0 } == [2] && failures.first?.1.isUnprocessed == true)
        #expect(machine.phase == .draining)
        try peer.send(.headers(.init(headers: [":status": "200"], endStream: true)), streamID: 1)
        try peer.deliver(to: &machine, now: t0)
        let effects = machine.drained()
        #expect(effects.compactMap(\.success).map { $0.0 } == [1])
        #expect(effects.contains { $0.closeError != nil })
    }

    @Test func aGoAwayFailsTheStreamsAboveItsLastStreamAsUnprocessed() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1), NIOHTTP2Peer.request(2)], now: t0, writable: true)
        try peer.receive(from: &machine)
        _ = machine.drained()
        let reason = ByteBuffer(string: #"{"reason":"Shutdown"}"#)
        try peer.send(.goAway(lastStreamID: 1, errorCode: .noError, opaqueData: reason))
        try peer.deliver(to: &machine, now: t0)
        let effects = machine.drained()
        #expect(effects.compactMap(\.failure).map { $0.0 } == [2])
        #expect(effects.contains { if case .goAway("Shutdown") = $0 { true } else { false } })
        #expect(machine.phase == .draining)
    }

    @Test func aClosingConnectionAsksToCloseOnceTakesNoRequestsAndEndsWithItsReason() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1)], now: t0, writable: true)
        try peer.receive(from: &machine)
        _ = machine.drained()
        #expect(machine.statusPhase == .ready)
        machine.tick(now: t0 + .seconds(6), writable: true)  // the stream times out; a PING goes out
        machine.tick(now: t0 + .seconds(9), writable: true)  // the PING is not answered
        machine.setupTimedOut()  // too late to matter: the connection was set up
        machine.beginDraining(failingWaitingWith: .unprocessed("retired"))
        #expect(machine.drained().compactMap(\.closeError) == [.pingTimeout])
        #expect(machine.phase == .closing(.pingTimeout) && machine.statusPhase == .draining)
        machine.submit([NIOHTTP2Peer.request(2)], now: t0 + .seconds(9), writable: true)
        #expect(machine.drained().compactMap(\.failure).map { $0.1 } == [.pingTimeout])
        machine.channelClosed()
        #expect(machine.phase == .closed(.pingTimeout) && machine.statusPhase == .closed)
    }

    @Test func thePrefaceGoesOutOnceAndTheSetupDeadlineOnlyCountsBeforeSettings() throws {
        var machine = APNSConnectionStateMachine<Int>(
            configuration: .init(
                authority: "api.push.apple.com", requestTimeout: .seconds(5), idlePingInterval: .seconds(3600),
                pingTimeout: .seconds(2), requiresAuthentication: false), now: t0)
        #expect(machine.phase == .idle && machine.statusPhase == .connecting)
        machine.channelActive()
        let preface = machine.takeOutbound().readableBytes
        machine.channelActive()
        #expect(preface > 0 && machine.takeOutbound().readableBytes == 0 && machine.phase == .awaitingSettings)
        machine.setupTimedOut()
        #expect(machine.drained().compactMap(\.closeError).map(\.reason) == ["ConnectFailed"])
    }

    // MARK: Hostile peers (frames a correct server never sends, written by hand)

    @Test func anEndlessContinuationIsAnsweredWithGoAwayEnhanceYourCalm() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1)], now: t0, writable: true)
        try peer.receive(from: &machine)
        var bytes = ByteBuffer()
        HTTP2Wire.writeFrameHeader(into: &bytes, length: 16_000, type: .headers, streamID: 1)
        bytes.writeRepeatingByte(0x40, count: 16_000)
        for _ in 0..<10 {
            HTTP2Wire.writeFrameHeader(into: &bytes, length: 16_000, type: .continuation, streamID: 1)
            bytes.writeRepeatingByte(0x40, count: 16_000)
        }
        machine.read(bytes, now: t0, writable: true)
        #expect(machine.codec.pendingHeaderBlock == nil || machine.codec.pendingHeaderBlock!.block.readableBytes <= 64 * 1024)
        #expect(machine.drained().contains { $0.closeError != nil })
        #expect(try peer.receive(from: &machine).compactMap(\.payload.goAwayCode) == [.enhanceYourCalm])
    }

    @Test func aPingFloodIsCutOffNotAcknowledgedForever() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        var bytes = ByteBuffer()
        for n in 0..<1_000 { HTTP2Wire.writePing(into: &bytes, data: UInt64(n), ack: false) }
        machine.read(bytes, now: t0, writable: true)
        #expect(machine.drained().contains { $0.closeError != nil })
        let frames = try peer.receive(from: &machine)
        #expect(frames.filter(\.payload.isPingAck).count <= 200)
        #expect(frames.last?.payload.goAwayCode == .enhanceYourCalm)
    }

    @Test func pingsSpreadOverTimeAreAllAnswered() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        for window in 0..<5 {
            var bytes = ByteBuffer()
            for n in 0..<150 { HTTP2Wire.writePing(into: &bytes, data: UInt64(n), ack: false) }
            machine.read(bytes, now: t0 + .seconds(Int64(30 * window)), writable: true)
        }
        #expect(try peer.receive(from: &machine).filter(\.payload.isPingAck).count == 750)
        #expect(!machine.drained().contains { $0.closeError != nil })
    }

    @Test func aZeroConnectionWindowUpdateIsAProtocolError() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        var bytes = ByteBuffer()
        HTTP2Wire.writeFrameHeader(into: &bytes, length: 4, type: .windowUpdate, streamID: 0)
        bytes.writeInteger(UInt32(0))
        machine.read(bytes, now: t0, writable: true)
        #expect(try peer.receive(from: &machine).compactMap(\.payload.goAwayCode) == [.protocolError])
    }

    @Test func badStreamWindowUpdatesResetOnlyThatStream() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1), NIOHTTP2Peer.request(2), NIOHTTP2Peer.request(3)], now: t0, writable: true)
        try peer.receive(from: &machine)
        _ = machine.drained()
        var bytes = ByteBuffer()
        HTTP2Wire.writeWindowUpdate(into: &bytes, streamID: 1, increment: 0)
        HTTP2Wire.writeWindowUpdate(into: &bytes, streamID: 3, increment: Int(Int32.max))
        machine.read(bytes, now: t0, writable: true)
        #expect(Set(machine.drained().compactMap(\.failure).map { $0.0 }) == [1, 2])
        let resets = try peer.receive(from: &machine).compactMap { frame in frame.payload.resetCode.map { (frame.streamID, $0) } }
        #expect(resets.map(\.1) == [.protocolError, .flowControlError])
        #expect(machine.inFlight == 1 && machine.phase == .ready)
    }

    @Test func nothingStartsWhileTheSocketIsNotWritable() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected(now: t0)
        machine.submit([NIOHTTP2Peer.request(1)], now: t0, writable: false)
        #expect(try peer.receive(from: &machine).isEmpty)
        machine.writabilityChanged(writable: true, now: t0)
        #expect(try peer.receive(from: &machine).count == 2)
    }
}

extension APNSConnectionStateMachineTests {
    @Test func manyRequestsAfterTheStreamLimitRisesStayInOrderForARealServer() throws {
        var (peer, machine) = try NIOHTTP2Peer.connected({ $0.requiresAuthentication = true }, maxConcurrentStreams: 1, now: t0)
        machine.useProviderToken("token")
        var answered = 0
        var open = [HTTP2StreamID]()
        /// The server answers every stream it has seen; the machine starts what waited.
        func answerOpenStreams() throws {
            for id in open { try peer.send(.headers(.init(headers: [":status": "200"], endStream: true)), streamID: id) }
            open.removeAll()
            try peer.deliver(to: &machine, now: t0)
            answered += machine.drained().compactMap(\.success).count
            for frame in try peer.receive(from: &machine) {
                if case .headers = frame.payload { open.append(frame.streamID) }
            }
        }
        for round in 0..<40 {
            machine.submit((0..<50).map { NIOHTTP2Peer.request(round * 50 + $0, bodySize: 600) }, now: t0, writable: true)
            for frame in try peer.receive(from: &machine) {
                if case .headers = frame.payload { open.append(frame.streamID) }
            }
            if round == 0 { try peer.send(.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000)]))) }
            try answerOpenStreams()
        }
        for _ in 0..<10 where !open.isEmpty { try answerOpenStreams() }
        #expect(answered == 2000)
    }
}
