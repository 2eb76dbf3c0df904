import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention", abstract: "Delete ledger rows older than the retention settings (serve does it daily).",
        subcommands: [Run.self])

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run retention now with the HERALD_RETENTION_*_DAYS settings; --dry-run only counts.")

        @OptionGroup var options: CommonOptions
        @Flag(help: "Count what would be deleted; delete nothing.") var dryRun = false

        func run() async throws {
            let (configuration, logger) = try options.load()
            let policy = configuration.retention
            let batchSize = configuration.retentionBatchSize
            let result = try await Store.with(configuration, logger: logger) { store in
                try await store.retention.purge(policy, now: Date(), batchSize: batchSize, dryRun: dryRun, actor: cliActor)
            }
            guard let result else { throw CLIError("another instance is running retention now; try again later") }
            let verb = dryRun ? "Would delete" : "Deleted"
            print(
                "\(verb) \(result.deliveries) deliveries of \(result.campaigns) campaigns finished over \(policy.deliveriesDays) days ago"
                    + (result.ledgerPartitions > 0
                        ? " (\(result.ledgerPartitions) ledger month\(result.ledgerPartitions == 1 ? "" : "s") dropped whole), " : ", ")
                    + "\(result.notifications) notifications (\(policy.notificationsDays) days), "
                    + "\(result.testDeliveries) test sends (\(policy.testDeliveriesDays) days), "
                    + "\(result.events) events (\(policy.eventsDays) days), \(result.audit) audit rows (\(policy.auditDays) days), "
                    + "\(result.webhookMessages) webhook messages (\(policy.webhookMessagesDays) days).")
        }
    }
}
