import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Show the audit log, newest first: who changed what, from the API, the console and the CLI.")

    @OptionGroup var options: CommonOptions
    @Option(help: "Only rows by this actor, e.g. user:ana@example.com or cli:root@host.") var actor: String?
    @Option(help: "Only this action, e.g. credential.activate, key.revoke, prune.") var action: String?
    @Option(help: "Only rows about this app (bundle ID).") var app: String?
    @Option(help: "Only rows at or after this time, RFC 3339.") var since: String?
    @Option(help: "How many rows, 1 to \(AuditQuery.maximumLimit).") var limit = 50

    func run() async throws {
        guard (1...AuditQuery.maximumLimit).contains(limit) else { throw CLIError("--limit must be 1 to \(AuditQuery.maximumLimit)") }
        let sinceDate = try since.map { try CLIError.time($0, flag: "--since") }
        for (flag, value) in [("--actor", actor), ("--action", action)] {
            if let value, value.isEmpty || TextRules.forbiddenCharacter(in: value) != nil {
                throw CLIError("\(flag) must be text without control characters")
            }
        }
        let (configuration, logger) = try options.load()
        let page = try await Store.with(configuration, logger: logger) { store in
            var query = AuditQuery(actor: actor, action: action, since: sinceDate, limit: limit)
            if let app { query.appID = try await store.requireApp(app).id }
            return try await store.audit.list(query)
        }
        let rows = try page.entries.map { entry in
            [
                KeysCommand.List.format(entry.at), entry.actor, entry.action, entry.bundleID ?? "-",
                try CanonicalJSON.text(entry.details),
            ]
        }
        print(Table.render(header: ["AT", "ACTOR", "ACTION", "APP", "DETAILS"], rows: rows))
    }
}
