import Foundation
import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Runs retention in `herald serve`: first `HERALD_RETENTION_FIRST_RUN_MINUTES` after start
/// (so an instance restarting in a loop does not delete in a loop), then every
/// `HERALD_RETENTION_INTERVAL_HOURS`. Any number of instances may run it; one at a time does
/// the work (the store's advisory lock), the others find the lock taken and wait for their
/// next turn.
struct RetentionService: Service {
    public let retention: any RetentionStore
    public let policy: RetentionPolicy
    let firstRun: Duration
    public let interval: Duration
    public let batchSize: Int
    public let migrated: MigrationGate
    public let logger: Logger

    public init(configuration: HeraldConfiguration, store: Store, logger: Logger, after migrated: MigrationGate) {
        retention = store.retention
        policy = configuration.retention
        firstRun = .seconds(60 * configuration.retentionFirstRunMinutes)
        interval = .seconds(3600 * configuration.retentionIntervalHours)
        batchSize = configuration.retentionBatchSize
        self.migrated = migrated
        self.logger = logger
    }

    public func run() async throws {
        guard await migrated.wait() else { return }
        do {
            try await cancelWhenGracefulShutdown {
                try await Task.sleep(for: firstRun)
                while true {
                    await runOnce()
                    try await Task.sleep(for: interval)
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
    }

    private func runOnce() async {
        do {
            guard let result = try await retention.purge(policy, now: Date(), batchSize: batchSize, dryRun: false, actor: "retention") else {
                logger.info("retention: another instance is running it")
                return
            }
            logger.info(
                "retention: deleted \(result.total) rows",
                metadata: [
                    "deliveries": "\(result.deliveries)", "campaigns": "\(result.campaigns)",
                    "ledger_partitions": "\(result.ledgerPartitions)",
                    "notifications": "\(result.notifications)", "test_deliveries": "\(result.testDeliveries)",
                    "events": "\(result.events)", "audit_log": "\(result.audit)",
                    "webhook_messages": "\(result.webhookMessages)",
                ])
        } catch {
            logger.warning("retention failed; it runs again at its next turn", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
