import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Maintain the token registry.", subcommands: [Prune.self])

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete dead tokens in small batches, recording the prune in the audit log.")

        @OptionGroup var options: CommonOptions
        @Option(help: "Delete tokens invalidated before this time (RFC 3339, or Nd for N days ago).")
        var invalidatedBefore: String?
        @Option(help: "Delete tokens not registered since this time (RFC 3339, or Nd for N days ago).")
        var notRegisteredSince: String?
        @Option(help: "Only this app's tokens (bundle ID).") var app: String?
        @Flag(help: "Count what would be deleted; delete nothing.") var dryRun = false

        func run() async throws {
            let invalidatedBefore = try invalidatedBefore.map { try Self.parseTime($0, option: "--invalidated-before") }
            let notRegisteredSince = try notRegisteredSince.map { try Self.parseTime($0, option: "--not-registered-since") }
            if invalidatedBefore == nil, notRegisteredSince == nil {
                throw CLIError("give --invalidated-before, --not-registered-since or both; a prune without a date would delete everything")
            }
            let (configuration, logger) = try options.load()
            let result = try await Store.with(configuration, logger: logger) { store in
                var appID: Int64?
                if let app {
                    guard let found = try await store.apps.find(bundleID: app) else { throw CLIError("--app: no app \(app)") }
                    appID = found.id
                }
                let request = try PruneRequest(
                    invalidatedBefore: invalidatedBefore, notRegisteredSince: notRegisteredSince, appID: appID, dryRun: dryRun)
                return try await store.pruner.prune(request, actor: cliActor)
            }
            print(dryRun ? "Would delete \(result.total) tokens." : "Deleted \(result.total) tokens in \(result.batches) batches.")
            for (reason, count) in result.byReason.sorted(by: { $0.key < $1.key }) {
                print("  \(reason): \(count)")
            }
        }

        static func parseTime(_ text: String, option: String) throws -> Date {
            if text.hasSuffix("d"), let days = Int(text.dropLast()), days >= 0 {
                return Date(timeIntervalSinceNow: -Double(days) * 86_400)
            }
            guard let date = RFC3339.parse(text) else {
                throw CLIError("\(option) must be an RFC 3339 time (2026-01-31T00:00:00Z) or a number of days (30d)")
            }
            return date
        }
    }
}
