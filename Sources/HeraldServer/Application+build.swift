import APNSClient
import Foundation
import HeraldAPI
import HeraldConsole
import HeraldCore
import HeraldDelivery
import HeraldSending
import HeraldStore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP routes: the API and, when enabled, the console.
func buildHTTPRouter(
    configuration: HeraldConfiguration, store: Store, directSender: DirectSender, senders: (any SenderDirectory)? = nil,
    keyCache: APIKeyCache? = nil, appDirectory: AppDirectory? = nil, metricsText: @escaping @Sendable () -> String
) -> Router<HeraldRequestContext> {
    // One cache of authenticated keys, which the console clears too when it revokes one.
    let keyCache = keyCache ?? APIKeyCache(ttl: .seconds(configuration.apiKeyCacheSeconds))
    let router = buildRouter(
        APIDependencies(
            apps: store.apps, certificates: PKCS12CertificateReader(), devices: store.devices, pruner: store.pruner,
            keys: store.keys, audit: store.audit,
            keyCache: keyCache,
            appDirectory: appDirectory ?? AppDirectory(apps: store.apps, ttl: .seconds(configuration.appCacheSeconds)),
            ledger: store.ledger,
            templates: store.templates,
            campaigns: store.campaigns, events: store.events, sender: directSender,
            liveActivities: store.liveActivities,
            liveActivityUpdater: LiveActivityUpdater(activities: store.liveActivities, templates: store.templates),
            readiness: store.readiness, webhooks: store.webhooks, metricsText: metricsText,
            metricsToken: configuration.metricsToken,
            limits: configuration.apiLimits, channels: store.channels,
            channelManager: senders.map { ChannelManager(channels: store.channels, senders: $0) },
            segments: store.segments, series: store.series, journeys: store.journeys,
            classifyError: DatabaseProblems.classify))
    if configuration.consoleEnabled {
        addConsoleRoutes(
            to: router,
            ConsoleDependencies(
                apps: store.apps, devices: store.devices, pruner: store.pruner, templates: store.templates,
                campaigns: store.campaigns, events: store.events, sender: directSender,
                liveActivities: store.liveActivities,
                liveActivityUpdater: LiveActivityUpdater(activities: store.liveActivities, templates: store.templates),
                users: store.users,
                sessions: store.sessions, settings: configuration.consoleSettings, channels: store.channels,
                segments: store.segments, series: store.series, journeys: store.journeys, audit: store.audit, keys: store.keys,
                certificates: PKCS12CertificateReader(), webhooks: store.webhooks,
                allowPrivateWebhookAddresses: configuration.webhookAllowPrivateAddresses,
                forgetKey: { keyCache.forget(keyID: $0) },
                classifyError: { error in
                    DatabaseProblems.classify(error).map { ConsoleFailure(status: Int($0.status.code), message: $0.detail) }
                }))
    }
    return router
}

/// The composition root: wires the store into the API. `herald serve` and the tests both
/// build the application here.
public func buildApplication(
    configuration: HeraldConfiguration, store: Store, logger: Logger, keyCache: APIKeyCache? = nil,
    appDirectory: AppDirectory? = nil, metricsText: @escaping @Sendable () -> String
) -> some ApplicationProtocol {
    // One set of APNs connection pools for the engine and the API's direct sends.
    let senders = APNSSenderDirectory(
        configuration: configuration, apps: store.apps, providerTokens: store.providerTokens, logger: logger)
    let directSender = DirectSender(
        devices: store.devices, templates: store.templates, senders: senders, ledger: store.directSends, logger: logger)
    let keyCache = keyCache ?? APIKeyCache(ttl: .seconds(configuration.apiKeyCacheSeconds))
    let appDirectory = appDirectory ?? AppDirectory(apps: store.apps, ttl: .seconds(configuration.appCacheSeconds))
    let router = buildHTTPRouter(
        configuration: configuration, store: store, directSender: directSender, senders: senders, keyCache: keyCache,
        appDirectory: appDirectory, metricsText: metricsText)
    var app = Application(
        router: router,
        // A connection that sends nothing, not even a whole request header, for the idle timeout
        // is closed (slowloris); past the connection bound, new ones wait in the listen backlog.
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestDeadlineHandler(deadline: requestDeadline(configuration))],
                idleTimeout: .milliseconds(Int64(configuration.httpIdleTimeoutMilliseconds)))),
        configuration: .init(
            address: .hostname(configuration.httpHost, port: configuration.httpPort), serverName: "herald",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.httpMaxConnections, logger: logger)),
        // Services stop in reverse order: the senders close after the engine has drained.
        services: [
            store.client, SendersService(senders: senders), ProviderTokenSharing(tokens: senders.providerTokens),
            ChangeListener(changes: store.changes, keys: keyCache, apps: appDirectory, logger: logger),
        ],
        logger: logger)
    let migrated = MigrationGate(open: !configuration.autoMigrate)
    app.addServices(CertificateExpiryService(apps: store.apps, after: migrated, logger: logger))
    if configuration.engineEnabled {
        app.addServices(
            EngineService(configuration: configuration, store: store, logger: logger, senders: senders, after: migrated))
        app.addServices(WebhookService(configuration: configuration, store: store, logger: logger, after: migrated))
        if configuration.retentionEnabled {
            app.addServices(RetentionService(configuration: configuration, store: store, logger: logger, after: migrated))
        }
    }
    if configuration.autoMigrate {
        // Migrations first: the port opens only on a current schema, and the engine waits too.
        app.beforeServerStarts {
            try await store.migrator.migrate()
            // A Citus coordinator not yet distributed runs Herald as one PostgreSQL would; the
            // conversion moves rows, so it is `herald migrate`'s to do, not a start's.
            let conversion = CitusConversion(client: store.client, logger: logger)
            if try await conversion.citusVersion() != nil, try await !conversion.isConverted() {
                logger.warning(
                    "this database is a Citus coordinator whose tables are not distributed: run herald migrate (docs/scaling.md, \"Moving to a cluster\")"
                )
            }
            migrated.open()
        }
    }
    return app
}

/// How long a request may take to arrive whole: `HERALD_HTTP_REQUEST_TIMEOUT_MS`, or for a
/// device import its own bound plus a minute (the import answers 408 first).
func requestDeadline(_ configuration: HeraldConfiguration) -> @Sendable (String) -> TimeAmount {
    let request = TimeAmount.milliseconds(Int64(configuration.httpRequestTimeoutMilliseconds))
    let importing = TimeAmount.seconds(Int64(configuration.importMaximumSeconds) + 60)
    return { path in path.split(separator: "?").first?.hasSuffix("/devices/import") == true ? importing : request }
}

/// Closes the APNs connection pools once the process is shutting down and the services
/// registered after it (the engine) have stopped.
struct SendersService: Service {
    public let senders: APNSSenderDirectory

    public func run() async throws {
        try? await gracefulShutdown()
        await senders.shutdown()
    }
}

/// The campaign engine, the Live Activity fan-out and the journey engine. Given no senders, it makes its own and
/// closes them after both drain.
public struct EngineService: Service {
    public let engine: DeliveryEngine
    public let liveActivities: LiveActivityEngine
    public let journeys: JourneyEngine
    public let senders: APNSSenderDirectory
    let ownsSenders: Bool
    public let migrated: MigrationGate

    public init(
        configuration: HeraldConfiguration, store: Store, logger: Logger, owner: String = EngineService.defaultOwner(),
        senders shared: APNSSenderDirectory? = nil, after migrated: MigrationGate = MigrationGate(open: true),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.migrated = migrated
        senders =
            shared
            ?? APNSSenderDirectory(
                configuration: configuration, apps: store.apps, providerTokens: store.providerTokens, logger: logger)
        ownsSenders = shared == nil
        var delivery = DeliveryConfiguration(owner: owner)
        delivery.workers = configuration.engineWorkers
        delivery.batchSize = configuration.engineBatchSize
        delivery.leaseDuration = .seconds(configuration.engineLeaseSeconds)
        delivery.pollInterval = .milliseconds(configuration.enginePollMilliseconds)
        delivery.clock = clock
        delivery.deferredAttempts = configuration.engineDeferredAttempts
        delivery.deferredRetryDelay = .seconds(configuration.engineDeferredRetrySeconds)
        // Every attempt of a notification ends within the request timeout, plus backoff: a
        // batch past four of those with a minute to spare is hung, whatever the cause.
        delivery.batchDeadline = max(
            .seconds(300), .milliseconds(4 * (configuration.apnsRequestTimeoutMilliseconds + 10_000) + 60_000))
        engine = DeliveryEngine(
            configuration: delivery, work: store.campaignWork, campaigns: store.campaigns, templates: store.templates,
            senders: senders, logger: logger)
        liveActivities = LiveActivityEngine(
            configuration: delivery, workers: configuration.liveActivityWorkers, batchSize: configuration.liveActivityBatchSize,
            work: store.liveActivityWork,
            templates: store.templates, senders: senders, channels: store.channels, logger: logger)
        journeys = JourneyEngine(
            configuration: delivery, work: store.journeyWork, apps: store.apps,
            sender: DirectSender(
                devices: store.devices, templates: store.templates, senders: senders, ledger: store.directSends, logger: logger),
            batchSize: configuration.journeyBatchSize, concurrency: configuration.journeyConcurrency,
            segmentInterval: .seconds(configuration.journeySegmentSeconds), logger: logger)
    }

    public func run() async throws {
        if await migrated.wait() {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                group.addTask { try await liveActivities.run() }
                group.addTask { try await journeys.run() }
                try await group.waitForAll()
            }
        }
        if ownsSenders { await senders.shutdown() }
    }

    /// Asks the engines to stop as on SIGTERM.
    public func drain() {
        engine.drain()
        liveActivities.drain()
        journeys.drain()
    }

    /// Host, process and a random suffix: unique among running instances.
    public static func defaultOwner() -> String {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(suffix)"
    }
}
