import HeraldStore
import ArgumentParser
import Foundation
import HeraldCore

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create, list and revoke API keys.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an API key; it is printed once, alone on the last line, and only its hash is kept.")

        @OptionGroup var options: CommonOptions
        @Option(help: "admin, marketing or app.") var role: String
        @Option(help: "The bundle ID an app key is for.") var app: String?
        @Option(help: "A note to recognise the key by.") var name: String?

        func run() async throws {
            guard let role = APIKeyRole(rawValue: role) else { throw CLIError("--role must be admin, marketing or app") }
            if role == .app, app == nil { throw CLIError("--app is required for an app key") }
            if role != .app, app != nil { throw CLIError("--app is only for app keys") }
            let (configuration, logger) = try options.load()
            let (key, secret) = try await Store.with(configuration, logger: logger) { store in
                var appID: Int64?
                if let app {
                    guard let found = try await store.apps.find(bundleID: app) else { throw CLIError("--app: no app \(app)") }
                    appID = found.id
                }
                return try await store.keys.create(role: role, appID: appID, name: name, actor: cliActor)
            }
            print("Created \(key.role.rawValue) key \(key.id) (\(key.prefix)…)\(key.bundleID.map { " for \($0)" } ?? "").")
            print("It is shown this once; store it now:")
            print(secret.value)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List API keys (prefixes only).")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let (configuration, logger) = try options.load()
            let keys = try await Store.with(configuration, logger: logger) { try await $0.keys.list() }
            let rows = keys.map { key in
                [
                    String(key.id), key.prefix + "…", key.role.rawValue, key.bundleID ?? "-", key.name ?? "-",
                    Self.format(key.createdAt), key.lastUsedAt.map(Self.format) ?? "never",
                    key.revokedAt.map { "revoked " + Self.format($0) } ?? "active",
                ]
            }
            print(Table.render(header: ["ID", "PREFIX", "ROLE", "APP", "NAME", "CREATED", "LAST USED", "STATE"], rows: rows))
        }

        static func format(_ date: Date) -> String {
            date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API key by ID; it stops working at once.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The key's ID, as `herald keys list` shows it.") var id: Int64

        func run() async throws {
            let (configuration, logger) = try options.load()
            let revoked = try await Store.with(configuration, logger: logger) { try await $0.keys.revoke(id: id, actor: cliActor) }
            guard revoked else { throw CLIError("no active key with ID \(id)") }
            print("Revoked key \(id).")
        }
    }
}
