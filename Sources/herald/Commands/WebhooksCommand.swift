import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

/// `herald webhooks`: the API's webhook endpoints from the command line (docs/webhooks.md).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Add, list, test and remove webhook endpoints.",
        subcommands: [Add.self, List.self, Test.self, Remove.self])

    /// `--app BUNDLE_ID` or `--all-apps`, exactly one.
    struct Scope: ParsableArguments {
        @Option(help: "The app whose events the endpoint gets (with full device tokens).") var app: String?
        @Flag(help: "An endpoint for every app's events (token suffixes only).") var allApps = false

        func appID(_ store: Store) async throws -> Int64? {
            switch (app, allApps) {
            case (nil, false), (_?, true): throw CLIError("give --app BUNDLE_ID or --all-apps")
            case (let bundleID?, false):
                guard let found = try await store.apps.find(bundleID: bundleID) else { throw CLIError("--app: no app \(bundleID)") }
                return found.id
            case (nil, true): return nil
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an endpoint; its signing secret is printed once, alone on the last line.")

        @OptionGroup var options: CommonOptions
        @OptionGroup var scope: Scope
        @Option(help: "An absolute http(s) URL, without a user, password or fragment.") var url: String
        @Option(name: .customLong("event"), help: "An event type it takes (repeat for several); without it, all.")
        var events: [String] = []
        @Option(help: "A note to recognise it by.") var description: String?

        func run() async throws {
            let (configuration, logger) = try options.load()
            let new: NewWebhookEndpoint
            do {
                new = try NewWebhookEndpoint(
                    url: url, events: events.isEmpty ? nil : events, description: description,
                    allowPrivateAddresses: configuration.webhookAllowPrivateAddresses)
            } catch {
                throw CLIError(error, flags: ["events": "--event"])
            }
            let created = try await Store.with(configuration, logger: logger) { store in
                try await store.webhooks.addEndpoint(appID: try await scope.appID(store), new, actor: cliActor)
            }
            let endpoint = created.endpoint
            print(
                "Added webhook endpoint \(endpoint.id) for \(endpoint.bundleID ?? "every app"): "
                    + endpoint.events.map(\.rawValue).joined(separator: ", ") + ".")
            print("Its signing secret is shown this once; store it now:")
            print(created.secret)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List endpoints with their delivery state (never secrets).")

        @OptionGroup var options: CommonOptions
        @OptionGroup var scope: Scope

        func run() async throws {
            let (configuration, logger) = try options.load()
            let endpoints = try await Store.with(configuration, logger: logger) { store in
                try await store.webhooks.endpoints(appID: try await scope.appID(store))
            }
            let rows = endpoints.map { endpoint in
                [
                    String(endpoint.id), endpoint.url, endpoint.events.map(\.rawValue).joined(separator: ","),
                    String(endpoint.pending), endpoint.lastDeliveredAt.map(KeysCommand.List.format) ?? "never",
                    endpoint.lastFailure.map { "\(KeysCommand.List.format($0.at)) \($0.error)" } ?? "-",
                ]
            }
            print(Table.render(header: ["ID", "URL", "EVENTS", "PENDING", "LAST DELIVERED", "LAST FAILURE"], rows: rows))
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue a webhook.test message for an endpoint.")

        @OptionGroup var options: CommonOptions
        @OptionGroup var scope: Scope
        @Argument(help: "The endpoint's ID, as listed.") var id: Int64

        func run() async throws {
            let (configuration, logger) = try options.load()
            let message = try await Store.with(configuration, logger: logger) { store in
                try await store.webhooks.sendTest(appID: try await scope.appID(store), id: id, actor: cliActor)
            }
            guard let message else { throw CLIError("no webhook endpoint \(id) here") }
            print("Queued webhook.test message \(message.messageID.uuidString.lowercased()).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint and its undelivered messages.")

        @OptionGroup var options: CommonOptions
        @OptionGroup var scope: Scope
        @Argument(help: "The endpoint's ID, as listed.") var id: Int64

        func run() async throws {
            let (configuration, logger) = try options.load()
            let removed = try await Store.with(configuration, logger: logger) { store in
                try await store.webhooks.removeEndpoint(appID: try await scope.appID(store), id: id, actor: cliActor)
            }
            guard let removed else { throw CLIError("no webhook endpoint \(id) here") }
            print("Removed webhook endpoint \(removed.id) (\(removed.pending) undelivered messages dropped).")
        }
    }
}
