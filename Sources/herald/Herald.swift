import ArgumentParser
import Foundation
import Logging

@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "A self-hosted APNs provider: token registry, localized templates and campaigns.",
        subcommands: [
            MigrateCommand.self, ServeCommand.self, AppsCommand.self, KeysCommand.self, TokensCommand.self,
            TemplatesCommand.self, CampaignsCommand.self, UsersCommand.self, UserDataCommand.self, AuditCommand.self, RetentionCommand.self, SecretsCommand.self, WebhooksCommand.self, SendCommand.self, APNSSimCommand.self,
            BenchCommand.self,
        ])
}

/// Options every command that talks to PostgreSQL takes; each overrides its environment variable.
struct CommonOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL (HERALD_DATABASE_URL), e.g. postgres://herald@127.0.0.1:5432/herald.")
    var databaseURL: String?

    @Option(help: "Log level (HERALD_LOG_LEVEL): trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Option(help: "Folder of the NNNN_*.sql migrations (HERALD_MIGRATIONS_DIR).")
    var migrationsDir: String?

    var overrides: [String: String?] {
        ["herald.database.url": databaseURL, "herald.log_level": logLevel, "herald.migrations_dir": migrationsDir]
    }

    /// Loads the configuration and sets up logging to standard error (standard output is
    /// kept for results, such as a new API key).
    func load(extra: [String: String?] = [:]) throws -> (HeraldConfiguration, Logger) {
        let configuration = try HeraldConfiguration.load(overrides: overrides.merging(extra) { $1 })
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return (configuration, Logger(label: "herald"))
    }
}

/// Who the audit log names for CLI actions.
var cliActor: String {
    "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "unknown")
}
