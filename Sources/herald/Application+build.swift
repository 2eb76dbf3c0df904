import APNSClient
import Foundation
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import Logging
import ServiceLifecycle

/// The composition root: wires the store into the API. `herald serve` and the tests both
/// build the application here.
func buildApplication(
    configuration: HeraldConfiguration, store: Store, logger: Logger, metricsText: @escaping @Sendable () -> String
) -> some ApplicationProtocol {
    let router = buildRouter(
        APIDependencies(
            apps: store.apps, devices: store.devices, pruner: store.pruner, keys: store.keys, templates: store.templates,
            readiness: store.readiness, metricsText: metricsText))
    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.httpHost, port: configuration.httpPort), serverName: "herald"),
        services: [store.client],
        logger: logger)
    if configuration.engineEnabled {
        app.addServices(EngineService(configuration: configuration, store: store, logger: logger))
    }
    if configuration.autoMigrate {
        // Migrations first: the port opens only on a current schema.
        app.beforeServerStarts {
            try await store.migrator.migrate()
        }
    }
    return app
}

/// The campaign engine with its APNs connection pools, which close after it drains.
struct EngineService: Service {
    let engine: DeliveryEngine
    let senders: APNSSenderDirectory

    init(configuration: HeraldConfiguration, store: Store, logger: Logger, owner: String = EngineService.defaultOwner()) {
        let shards = configuration.apnsShards
        let connections = configuration.apnsConnectionsPerShard
        senders = APNSSenderDirectory(apps: store.apps, logger: logger) { apns in
            apns.shards = shards
            apns.connectionsPerShard = connections
        }
        var delivery = DeliveryConfiguration(owner: owner)
        delivery.workers = configuration.engineWorkers
        delivery.batchSize = configuration.engineBatchSize
        delivery.leaseDuration = .seconds(configuration.engineLeaseSeconds)
        delivery.pollInterval = .milliseconds(configuration.enginePollMilliseconds)
        engine = DeliveryEngine(
            configuration: delivery, work: store.campaignWork, campaigns: store.campaigns, templates: store.templates,
            senders: senders, logger: logger)
    }

    func run() async throws {
        try await engine.run()
        await senders.shutdown()
    }

    /// Host, process and a random suffix: unique among running instances.
    static func defaultOwner() -> String {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(suffix)"
    }
}
