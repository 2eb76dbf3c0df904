import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldSending
import HeraldServer
import HeraldStore

/// `herald channels`: an app's iOS 18 broadcast channels (docs/live-activities.md "Broadcast
/// channels"). `create`, `delete` and `remote` talk to APNs's channel management API with the
/// app's stored credential; `list` and `show` read Herald's record.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels", abstract: "Create, list and delete broadcast channels for Live Activities.",
        subcommands: [List.self, Show.self, Create.self, Delete.self, Remote.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The channels Herald made for an app, newest first.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "Only active, deleted or gone channels.") var state: String?
        @Option(help: "Only the channels of this activity.") var activity: String?
        @Option(help: "At most this many (1 to 200).") var limit = 50

        func run() async throws {
            let state = try self.state.map { text in
                guard let value = BroadcastChannel.State(rawValue: text) else {
                    throw CLIError("--state: must be active, deleted or gone")
                }
                return value
            }
            let activity = try self.activity.map(LiveActivitiesCommand.activityID)
            guard (1...200).contains(limit) else { throw CLIError("--limit: must be 1 to 200") }
            let (configuration, logger) = try options.load()
            let (bundleID, limit) = (self.bundleID, self.limit)
            let page = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try await store.channels.channels(appID: app.id, state: state, activityID: activity, cursor: nil, limit: limit)
            }
            print(
                Table.render(
                    header: ["CHANNEL", "ENVIRONMENT", "POLICY", "ACTIVITY", "STATE", "BROADCASTS", "CREATED"],
                    rows: page.channels.map(ChannelsCommand.row)))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One channel as Herald knows it.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The channel ID (base64).") var channelID: String

        func run() async throws {
            let id = try ChannelsCommand.channelID(channelID)
            let (configuration, logger) = try options.load()
            let bundleID = self.bundleID
            let channel = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard let channel = try await store.channels.channel(appID: app.id, channelID: id) else {
                    throw CLIError("CHANNEL_ID: Herald made no channel \(id.value) for \(bundleID)")
                }
                return channel
            }
            print(
                Table.render(
                    header: ["CHANNEL", "ENVIRONMENT", "POLICY", "ACTIVITY", "STATE", "BROADCASTS", "CREATED"],
                    rows: [ChannelsCommand.row(channel)]))
            if let last = channel.lastBroadcastAt { print("last broadcast \(KeysCommand.List.format(last))") }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a channel at APNs and keep it, optionally for an activity (its updates then go as one broadcast).")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "sandbox or production (default: the app's default environment).") var environment: String?
        @Option(help: "0: no message kept; 1: the latest kept for devices offline.") var storagePolicy = 1
        @Option(help: "The activity whose updates the channel carries.") var activity: String?
        @Option(help: "HERALD_SECRET_KEY, which opens the stored signing key.") var secretKey: String?

        func run() async throws {
            guard let policy = ChannelStoragePolicy(rawValue: storagePolicy) else { throw CLIError("--storage-policy must be 0 or 1") }
            let environment = try self.environment.map(ChannelsCommand.environment)
            let activity = try self.activity.map(LiveActivitiesCommand.activityID)
            let bundleID = self.bundleID
            let channel = try await ChannelsCommand.withManager(options, secretKey: secretKey) { store, manager in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try await manager.create(
                    app: app, environment: environment ?? app.defaultEnvironment, storagePolicy: policy, activityID: activity,
                    actor: "cli")
            }
            print(channel.channelID.value)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel at APNs; Herald keeps its record as deleted.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The channel ID (base64).") var channelID: String
        @Option(help: "HERALD_SECRET_KEY, which opens the stored signing key.") var secretKey: String?

        func run() async throws {
            let id = try ChannelsCommand.channelID(channelID)
            let bundleID = self.bundleID
            let channel = try await ChannelsCommand.withManager(options, secretKey: secretKey) { store, manager in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard let channel = try await store.channels.channel(appID: app.id, channelID: id) else {
                    throw CLIError("CHANNEL_ID: Herald made no channel \(id.value) for \(bundleID)")
                }
                return try await manager.delete(app: app, channel: channel, actor: "cli")
            }
            print("\(channel.channelID.value): \(channel.state.rawValue)")
        }
    }

    struct Remote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The channels APNs holds for an app, each marked known when Herald made it.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "sandbox or production (default: the app's default environment).") var environment: String?
        @Option(help: "HERALD_SECRET_KEY, which opens the stored signing key.") var secretKey: String?

        func run() async throws {
            let environment = try self.environment.map(ChannelsCommand.environment)
            let bundleID = self.bundleID
            let rows = try await ChannelsCommand.withManager(options, secretKey: secretKey) { store, manager in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                var rows = [[String]]()
                for id in try await manager.remoteChannels(app: app, environment: environment ?? app.defaultEnvironment) {
                    let known = try await store.channels.channel(appID: app.id, channelID: id)
                    rows.append([id.value, known == nil ? "no" : "yes", known?.activityID ?? "-"])
                }
                return rows
            }
            print(Table.render(header: ["CHANNEL", "KNOWN", "ACTIVITY"], rows: rows))
        }
    }

    static func row(_ channel: BroadcastChannel) -> [String] {
        [
            channel.channelID.value, channel.environment.rawValue, String(channel.storagePolicy.rawValue),
            channel.activityID ?? "-", channel.state.rawValue, String(channel.broadcasts),
            KeysCommand.List.format(channel.createdAt),
        ]
    }

    static func channelID(_ text: String) throws -> BroadcastChannelID {
        guard let id = BroadcastChannelID(text) else { throw CLIError("CHANNEL_ID: must be a broadcast channel ID (base64)") }
        return id
    }

    static func environment(_ text: String) throws -> APNSEnvironment {
        guard let value = APNSEnvironment(rawValue: text) else { throw CLIError("--environment must be sandbox or production") }
        return value
    }

    /// Runs `body` with the store and a channel manager over the app's stored credentials; a
    /// refusal or silence from APNs is one line.
    static func withManager<Result: Sendable>(
        _ options: CommonOptions, secretKey: String?,
        _ body: @Sendable (Store, ChannelManager) async throws -> Result
    ) async throws -> Result {
        let (configuration, logger) = try options.load(extra: ["herald.secret_key": secretKey])
        return try await Store.with(configuration, logger: logger) { store in
            let senders = APNSSenderDirectory(apps: store.apps, logger: logger) { $0.shards = 1 }
            do {
                let result = try await body(store, ChannelManager(channels: store.channels, senders: senders))
                await senders.shutdown()
                return result
            } catch let error as ChannelManagementError {
                await senders.shutdown()
                throw CLIError(error.detail)
            } catch {
                await senders.shutdown()
                throw error
            }
        }
    }
}
