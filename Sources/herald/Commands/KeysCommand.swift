import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

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
        @Option(help: "Limit a marketing key to this app (repeat for several); without it, every app.")
        var scopeApp: [String] = []
        @Option(help: "When the key stops working, RFC 3339 (e.g. 2027-06-30T00:00:00Z); without it, never.")
        var expiresAt: String?

        func run() async throws {
            guard let role = APIKeyRole(rawValue: role) else { throw CLIError("--role must be admin, marketing or app") }
            if role == .app, app == nil { throw CLIError("--app is required for an app key") }
            if role != .app, app != nil { throw CLIError("--app is only for app keys") }
            if role != .marketing, !scopeApp.isEmpty { throw CLIError("--scope-app is only for marketing keys") }
            let expiry = try expiresAt.map { try CLIError.time($0, flag: "--expires-at") }
            let (configuration, logger) = try options.load()
            let (key, secret) = try await Store.with(configuration, logger: logger) { store in
                var appID: Int64?
                if let app {
                    guard let found = try await store.apps.find(bundleID: app) else { throw CLIError("--app: no app \(app)") }
                    appID = found.id
                }
                var scope: [Int64]?
                for bundleID in scopeApp {
                    guard let found = try await store.apps.find(bundleID: bundleID) else {
                        throw CLIError("--scope-app: no app \(bundleID)")
                    }
                    scope = (scope ?? []) + [found.id]
                }
                let new: NewAPIKey
                do {
                    new = try NewAPIKey(role: role, appID: appID, appScope: scope, name: name, expiresAt: expiry)
                } catch let error as HeraldCore.ValidationError {
                    throw CLIError(error, flags: ["apps": "--scope-app"])
                }
                return try await store.keys.create(new, actor: cliActor)
            }
            var note = key.bundleID.map { " for \($0)" } ?? ""
            if let scope = key.appScope { note += " for " + scope.joined(separator: ", ") }
            if let expires = key.expiresAt { note += ", expires \(List.format(expires))" }
            print("Created \(key.role.rawValue) key \(key.id) (\(key.prefix)…)\(note).")
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
                    String(key.id), key.prefix + "…", key.role.rawValue,
                    key.bundleID ?? key.appScope?.joined(separator: ",") ?? "-", key.name ?? "-",
                    Self.format(key.createdAt), key.lastUsedAt.map(Self.format) ?? "never",
                    key.revokedAt.map { "revoked " + Self.format($0) }
                        ?? key.expiresAt.map { ($0 <= Date() ? "expired " : "expires ") + Self.format($0) } ?? "active",
                ]
            }
            print(Table.render(header: ["ID", "PREFIX", "ROLE", "APPS", "NAME", "CREATED", "LAST USED", "STATE"], rows: rows))
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
