import ArgumentParser
import Foundation
import HeraldServer
import Logging

@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "A self-hosted APNs provider: token registry, localized templates and campaigns.",
        subcommands: [
            MigrateCommand.self, ServeCommand.self, AppsCommand.self, KeysCommand.self, TokensCommand.self,
            TemplatesCommand.self, CampaignsCommand.self, SegmentsCommand.self, SeriesCommand.self, JourneysCommand.self, UsersCommand.self,
            UserDataCommand.self, AuditCommand.self, RetentionCommand.self, SecretsCommand.self, WebhooksCommand.self, LiveActivitiesCommand.self,
            ChannelsCommand.self, SendCommand.self, APNSSimCommand.self,
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
        if let databaseURL, URLComponents(string: databaseURL)?.password != nil {
            CLIWarning.secretOnCommandLine("a password in --database-url", instead: "HERALD_DATABASE_URL or ~/.pgpass")
        }
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

/// Warnings a command prints to standard error, once, before it runs.
enum CLIWarning {
    /// A secret was given as an argument: other users of the machine see it in the process
    /// list, and the shell keeps it in its history.
    static func secretOnCommandLine(_ what: String, instead: String) {
        FileHandle.standardError.write(
            Data("warning: \(what) shows in the process list and shell history; prefer \(instead)\n".utf8))
    }
}

/// Secrets read from a file or standard input rather than the command line.
enum CLISecret {
    /// The first line of `file` (`-`: standard input), without its line break (a password may
    /// hold spaces, or be empty); a clear error naming `flag` when it cannot be read.
    static func firstLine(file: String, flag: String) throws -> String {
        let text: String
        if file == "-" {
            text = readLine(strippingNewline: true) ?? ""
        } else {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("\(flag): cannot read \(file)") }
            text = String(decoding: data, as: UTF8.self)
        }
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }
}
