import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An APNs-compatible HTTP/2 + TLS server for development, demos, tests and benchmarks.
///
/// It checks requests as APNs does (``SimulatorRequestValidator``), answers 200 with an
/// `apns-id` or APNs's error, and follows a ``SimulatorFaultScript``. Clients trust
/// ``caPEM`` and connect to ``host``:``port`` with ALPN `h2`.
///
/// ```swift
/// let simulator = try await APNSSimulator.start(
///     configuration: SimulatorConfiguration(providerKeys: ["ABC123DEFG": key.publicKey])
/// )
/// // … point a client at simulator.host, simulator.port, trusting simulator.caPEM …
/// try await simulator.shutdown()
/// ```
public final class APNSSimulator: Sendable {
    /// The bound address.
    public let host: String
    /// The bound port (the real one when the configuration asked for 0).
    public let port: Int
    /// The certificates in use; clients trust ``SimulatorCertificates/caPEM``.
    public let certificates: SimulatorCertificates
    private let serverChannel: any Channel
    private let engine: SimulatorEngine
    private let isShutDown = Mutex(false)

    /// The CA certificate clients must trust, PEM.
    public var caPEM: String { certificates.caPEM }

    /// What the simulator has seen so far.
    public var stats: SimulatorStats { engine.stats.snapshot() }

    private init(
        host: String,
        port: Int,
        certificates: SimulatorCertificates,
        serverChannel: any Channel,
        engine: SimulatorEngine
    ) {
        self.host = host
        self.port = port
        self.certificates = certificates
        self.serverChannel = serverChannel
        self.engine = engine
    }

    /// Makes or loads the certificates, binds, and starts accepting connections.
    public static func start(
        configuration: SimulatorConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "herald.apns-simulator")
    ) async throws -> APNSSimulator {
        let engine = try SimulatorEngine(configuration: configuration, logger: logger)
        let certificates: SimulatorCertificates
        let sslContext: NIOSSLContext
        do {
            certificates = try SimulatorCertificates.make(from: configuration.certificates)
            sslContext = try NIOSSLContext(
                configuration: certificates.makeServerTLSConfiguration(
                    clientCAPEM: configuration.clientCertificateAuthorityPEM,
                    requireClientCertificates: configuration.requireClientCertificates))
        } catch {
            try? engine.closeRecorder()
            throw error
        }
        if configuration.providerKeys.isEmpty, !configuration.acceptAnySignature,
            configuration.clientCertificateAuthorityPEM == nil
        {
            logger.warning("APNs simulator has no provider keys: every request will answer 403 InvalidProviderToken")
        }

        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try SimulatorConnection.configure(channel: channel, sslContext: sslContext, engine: engine)
                }
            }
        let serverChannel: any Channel
        do {
            serverChannel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            try? engine.closeRecorder()
            throw error
        }
        let port = serverChannel.localAddress?.port ?? configuration.port
        logger.info("APNs simulator listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        return APNSSimulator(
            host: configuration.host,
            port: port,
            certificates: certificates,
            serverChannel: serverChannel,
            engine: engine
        )
    }

    /// Writes out every notification recorded so far (the record file is buffered).
    public func flushRecord() throws {
        try engine.flushRecorder()
    }

    /// Stops accepting, closes every connection and flushes the record file. Calling it
    /// again does nothing.
    public func shutdown() async throws {
        let alreadyShutDown = isShutDown.withLock { state in
            defer { state = true }
            return state
        }
        guard !alreadyShutDown else { return }
        try? await serverChannel.close().get()
        for channel in engine.openConnections() {
            try? await channel.close().get()
        }
        try engine.closeRecorder()
        engine.logger.info("APNs simulator stopped", metadata: ["port": "\(port)"])
    }
}
