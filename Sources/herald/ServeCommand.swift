import ArgumentParser
import HeraldStore
import Hummingbird
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
        let store = try Store(configuration: configuration, logger: logger)
        // A database that cannot be reached stops the start with one line saying where and why.
        try await DatabaseProbe.check(store.url, logger: logger)
        let app = buildApplication(
            configuration: configuration, store: store, logger: logger, metricsText: { registry.emitToString() })
        try await app.runService()
    }
}
