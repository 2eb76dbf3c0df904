import HeraldCore
import HeraldDelivery
import Logging
import ServiceLifecycle

/// Delivers the webhook outbox in `herald serve` (with the engine): any number of instances
/// may run it, each claiming its own messages (docs/webhooks.md). It stops taking messages at
/// shutdown and lets the attempts under way finish (each within `HERALD_WEBHOOK_TIMEOUT_MS`).
struct WebhookService: Service {
    public let dispatcher: WebhookDispatcher
    public let transport: HTTPWebhookTransport
    public let migrated: MigrationGate

    public init(
        configuration: HeraldConfiguration, store: Store, logger: Logger, after migrated: MigrationGate,
        policy: WebhookRetryPolicy = .standard
    ) {
        transport = HTTPWebhookTransport(allowPrivateAddresses: configuration.webhookAllowPrivateAddresses)
        let concurrency = configuration.webhookConcurrency
        dispatcher = WebhookDispatcher(
            store: store.webhooks, transport: transport, policy: policy, concurrency: concurrency,
            perEndpoint: max(1, concurrency / 4), timeout: .milliseconds(Int64(configuration.webhookTimeoutMilliseconds)),
            logger: logger)
        self.migrated = migrated
    }

    public func run() async throws {
        if await migrated.wait() {
            await withGracefulShutdownHandler {
                await dispatcher.run()
            } onGracefulShutdown: {
                dispatcher.drain()
            }
        }
        await transport.shutdown()
    }
}
