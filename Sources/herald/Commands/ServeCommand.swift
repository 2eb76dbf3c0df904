import ArgumentParser
import HeraldServer
import HeraldStore
import Hummingbird
import Logging
import Metrics
import Prometheus

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP API until SIGTERM or SIGINT, then drain in-flight requests and stop.")

    @OptionGroup var options: CommonOptions

    @Option(help: "Address to listen on (HERALD_HTTP_HOST, default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (HERALD_HTTP_PORT, default 8080).")
    var port: Int?

    func run() async throws {
        let (configuration, logger) = try options.load(extra: [
            "herald.http.host": host, "herald.http.port": port.map(String.init),
        ])
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // Before any service starts, on a connection of its own: a database that cannot be
        // reached, or a HERALD_SECRET_KEY that does not open the stored secrets (an instance
        // that would fail webhooks for good and seal secrets the right key cannot open), stops
        // the start with one line saying why.
        try await Store.with(configuration, logger: logger) { preflight in
            if configuration.autoMigrate { try await preflight.migrator.migrate() }
            do {
                try await preflight.apps.verifySecretKey()
            } catch  where !(error is SecretKeyMismatch) && !configuration.autoMigrate {
                // A schema not migrated yet: readiness says so; the check waits for the next start.
                logger.warning(
                    "cannot check HERALD_SECRET_KEY against the stored secrets", metadata: ["error.type": "\(type(of: error))"])
            }
        }
        let store = try Store(configuration: configuration, logger: logger)
        let app = buildApplication(
            configuration: configuration, store: store, logger: logger, metricsText: { registry.emitToString() })
        try await app.runService()
    }
}
