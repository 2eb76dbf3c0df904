import APNSCore
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
    /// The bound port of the channel management API, if it serves one.
    public let managementPort: Int?
    /// The certificates in use; clients trust ``SimulatorCertificates/caPEM``.
    public let certificates: SimulatorCertificates
    private let serverChannel: any Channel
    private let managementChannel: (any Channel)?
    private let engine: SimulatorEngine
    private let isShutDown = Mutex(false)

    /// The CA certificate clients must trust, PEM.
    public var caPEM: String { certificates.caPEM }

    /// What the simulator has seen so far.
    public var stats: SimulatorStats { engine.stats.snapshot() }

    /// The broadcast channels of a bundle ID, with their storage policies, by channel ID.
    public func channels(of bundleID: String) -> [String: ChannelStoragePolicy] {
        engine.channels.channels(of: bundleID)
    }

    /// Drops a channel behind its owner's back, as APNs may (a fault for tests): broadcasts to
    /// it then answer ChannelNotRegistered. False when there was no such channel.
    @discardableResult
    public func forgetChannel(_ channelID: String, of bundleID: String) -> Bool {
        engine.channels.forget(channelID, of: bundleID)
    }

    /// The broadcasts accepted so far (the latest 10,000), oldest first.
    public var broadcasts: [SimulatorBroadcast] { engine.channels.broadcasts() }

    private init(
        host: String,
        port: Int,
        managementPort: Int?,
        certificates: SimulatorCertificates,
        serverChannel: any Channel,
        managementChannel: (any Channel)?,
        engine: SimulatorEngine
    ) {
        self.host = host
        self.port = port
        self.managementPort = managementPort
        self.certificates = certificates
        self.serverChannel = serverChannel
        self.managementChannel = managementChannel
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

        func bootstrap(management: Bool) -> ServerBootstrap {
            ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try SimulatorConnection.configure(
                            channel: channel, sslContext: sslContext, engine: engine, isManagement: management)
                    }
                }
        }
        let serverChannel: any Channel
        var managementChannel: (any Channel)?
        do {
            serverChannel = try await bootstrap(management: false).bind(host: configuration.host, port: configuration.port).get()
            if let managementPort = configuration.managementPort {
                do {
                    managementChannel = try await bootstrap(management: true)
                        .bind(host: configuration.host, port: managementPort).get()
                } catch {
                    try? await serverChannel.close().get()
                    throw error
                }
            }
        } catch {
            try? engine.closeRecorder()
            throw error
        }
        let port = serverChannel.localAddress?.port ?? configuration.port
        let managementPort = managementChannel.map { $0.localAddress?.port ?? configuration.managementPort ?? 0 }
        logger.info(
            "APNs simulator listening",
            metadata: [
                "host": "\(configuration.host)", "port": "\(port)",
                "management-port": "\(managementPort.map(String.init) ?? "none")",
            ])
        return APNSSimulator(
            host: configuration.host,
            port: port,
            managementPort: managementPort,
            certificates: certificates,
            serverChannel: serverChannel,
            managementChannel: managementChannel,
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
        try? await managementChannel?.close().get()
        for channel in engine.openConnections() {
            try? await channel.close().get()
        }
        try engine.closeRecorder()
        engine.logger.info("APNs simulator stopped", metadata: ["port": "\(port)"])
    }
}
