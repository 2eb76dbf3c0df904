import APNSCore
import Foundation
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL

/// One accepted connection: builds its pipeline, holds its script state and provider-token
/// cache, and writes the connection-level frames (SETTINGS, GOAWAY) its streams trigger.
/// Lives on the connection's event loop; its stream handlers share it.
final class SimulatorConnection {
    let number: Int
    let engine: SimulatorEngine
    private let channel: any Channel
    private let silencer: SilenceHandler
    private var state: SimulatorConnectionState
    private var tokenCache = ProviderTokenCache()
    private var reportedIndexing = false
    private let tls: NIOSSLServerHandler
    /// A connection to the channel management port: it takes channel requests only.
    private let isManagement: Bool
    /// The client certificate's identity, read once the handshake is done (at the first request).
    private var clientCertificate: APNSCertificateIdentity??

    private init(
        number: Int, engine: SimulatorEngine, channel: any Channel, silencer: SilenceHandler, tls: NIOSSLServerHandler,
        isManagement: Bool
    ) {
        self.isManagement = isManagement
        self.number = number
        self.engine = engine
        self.channel = channel
        self.silencer = silencer
        self.tls = tls
        state = SimulatorConnectionState(configuration: engine.configuration)
    }

    /// Sets up an accepted channel: TLS (ALPN h2), the silence switch, HTTP/2 with one
    /// ``SimulatorStreamHandler`` per stream, and the error handler. Runs on its event loop.
    static func configure(
        channel: any Channel, sslContext: NIOSSLContext, engine: SimulatorEngine, isManagement: Bool = false
    ) throws {
        let number = engine.stats.connectionOpened()
        engine.register(connection: number, channel: channel)
        channel.closeFuture.whenComplete { _ in
            engine.unregister(connection: number)
            engine.stats.connectionClosed()
        }

        let silencer = SilenceHandler()
        let tls = NIOSSLServerHandler(context: sslContext)
        let connection = SimulatorConnection(
            number: number, engine: engine, channel: channel, silencer: silencer, tls: tls, isManagement: isManagement)
        let boundConnection = NIOLoopBound(connection, eventLoop: channel.eventLoop)

        // docs/apns.md "The connection": one stream until a valid provider token arrives.
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: engine.configuration.initialMaxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]

        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(tls)
        try pipeline.addHandler(silencer)
        _ = try pipeline.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: connectionConfiguration,
            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
        ) { streamChannel in
            streamChannel.eventLoop.makeCompletedFuture {
                try streamChannel.pipeline.syncOperations.addHandler(
                    SimulatorStreamHandler(connection: boundConnection.value)
                )
            }
        }
        try pipeline.addHandler(ConnectionErrorHandler(logger: engine.logger))
        engine.logger.debug("simulator connection opened", metadata: ["connection": "\(number)"])
    }

    /// True once nothing more may leave the connection.
    var isSilent: Bool { state.isSilent }

    func streamOpened() {
        state.streamOpened()
    }

    /// A stream closed: after a GOAWAY, the last one closing closes the connection.
    func streamClosed() {
        guard state.streamClosed() else { return }
        let channel = channel
        engine.logger.debug("simulator closing connection after GOAWAY", metadata: ["connection": "\(number)"])
        // On the next tick, so the last response leaves the pipeline first.
        channel.eventLoop.execute {
            channel.close(promise: nil)
        }
    }

    /// A request's headers arrived on `streamID`; returns the request's number on this
    /// connection. `pathOrAuthorizationIndexed` reports an HPACK rule broken by the client.
    /// `nil` for a stream above the last-stream-id of a GOAWAY already decided: it is ignored.
    func requestStarted(streamID: HTTP2StreamID, pathOrAuthorizationIndexed: Bool) -> Int? {
        let (requestNumber, action) = state.requestStarted(streamID: Int(streamID))
        if action == .ignore { return nil }
        engine.stats.requestReceived(connection: number, pathOrAuthorizationIndexed: pathOrAuthorizationIndexed)
        if pathOrAuthorizationIndexed, !reportedIndexing {
            reportedIndexing = true
            engine.logger.warning(
                "client sent :path or authorization with HPACK indexing; APNs wants literal without indexing",
                metadata: ["connection": "\(number)"]
            )
        }
        switch action {
        case .proceed, .ignore:
            break
        case .sendGoAway(let lastStreamID):
            sendGoAway(lastStreamID: lastStreamID)
        case .goSilent:
            silencer.silence()
            engine.logger.debug("simulator connection silent", metadata: ["connection": "\(number)"])
        }
        return requestNumber
    }

    /// Whether request `number` gets an answer (now, or after the scripted delay).
    func shouldAnswer(requestNumber number: Int) -> Bool {
        state.shouldAnswer(requestNumber: number)
    }

    /// Request `number` was answered; silences the connection after the scripted count.
    func answered(requestNumber number: Int) {
        guard state.answered(requestNumber: number) else { return }
        silencer.silence()
        engine.logger.debug("simulator connection silent", metadata: ["connection": "\(self.number)"])
    }

    /// Judges a request with this connection's token cache; the first valid provider token
    /// lifts the stream limit with a new SETTINGS frame (docs/apns.md "The connection").
    func validate(headers: [(String, String)], body: [UInt8], now: Date) -> SimulatorVerdict {
        let certificate = peerCertificate()
        let verdict: SimulatorVerdict
        if isManagement {
            verdict = engine.validator.validateManagement(
                headers: headers, body: body, now: now, clientCertificate: certificate, tokenCache: &tokenCache)
        } else if headers.contains(where: { $0.0 == ":path" && $0.1.hasPrefix("/4/broadcasts/") }) {
            verdict = engine.validator.validateBroadcast(
                headers: headers, body: body, now: now, clientCertificate: certificate, tokenCache: &tokenCache)
        } else {
            verdict = engine.validator.validate(
                headers: headers, body: body, now: now, clientCertificate: certificate, tokenCache: &tokenCache)
        }
        if verdict.isAuthenticated, let limit = state.providerTokenAccepted() {
            let settings: HTTP2Settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: limit)]
            let frame = HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))
            channel.writeAndFlush(frame, promise: nil)
        }
        return verdict
    }

    /// What the client's certificate says, if it sent one (verified against the configured CA
    /// during the handshake).
    private func peerCertificate() -> APNSCertificateIdentity? {
        if let known = clientCertificate { return known }
        let identity = tls.peerCertificate.flatMap { try? $0.toDERBytes() }.flatMap(APNSCertificateIdentity.init(derEncoded:))
        clientCertificate = .some(identity)
        return identity
    }

    /// GOAWAY with APNs's JSON data (docs/apns.md "The connection": `{"reason": "..."}`); streams above
    /// `lastStreamID` are ignored by the HTTP/2 handler from now on.
    private func sendGoAway(lastStreamID: Int) {
        let data = ByteBuffer(bytes: SimulatorJSON.errorBody(reason: APNSReason.shutdown.rawValue))
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: HTTP2StreamID(lastStreamID), errorCode: .noError, opaqueData: data)
        )
        // On the next tick: not from inside the HTTP/2 handler's processing of a read.
        let channel = channel
        channel.eventLoop.execute { channel.writeAndFlush(frame, promise: nil) }
        engine.stats.goAwaySent()
        engine.logger.debug(
            "simulator sent GOAWAY",
            metadata: ["connection": "\(number)", "last-stream-id": "\(lastStreamID)"]
        )
    }
}

@available(*, unavailable)
extension SimulatorConnection: Sendable {}
