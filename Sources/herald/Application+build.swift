import HeraldStore
import HeraldAPI
import HeraldCore
import Hummingbird
import Logging

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
    if configuration.autoMigrate {
        // Migrations first: the port opens only on a current schema.
        app.beforeServerStarts {
            try await store.migrator.migrate()
        }
    }
    return app
}
