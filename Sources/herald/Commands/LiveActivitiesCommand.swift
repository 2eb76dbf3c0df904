import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore

/// `herald live-activities`: an app's Live Activities from the command line
/// (docs/live-activities.md). Updates are queued here and sent by the instances' engines.
struct LiveActivitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-activities", abstract: "List and show Live Activities; update or end one on every device.",
        subcommands: [List.self, Show.self, Update.self, End.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An app's activities, newest first.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "Only active or ended activities.") var state: String?
        @Option(help: "At most this many (1 to 200).") var limit = 50

        func run() async throws {
            let state = try self.state.map { text in
                guard let value = LiveActivity.State(rawValue: text) else { throw CLIError("--state: must be active or ended") }
                return value
            }
            guard (1...200).contains(limit) else { throw CLIError("--limit: must be 1 to 200") }
            let (configuration, logger) = try options.load()
            let (bundleID, limit) = (self.bundleID, self.limit)
            let page = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try await store.liveActivities.activities(appID: app.id, state: state, cursor: nil, limit: limit, now: Date())
            }
            let rows = page.activities.map { activity in
                [
                    activity.activityID, activity.attributesType ?? "-", activity.state.rawValue, String(activity.tokenCount),
                    activity.lastUpdateAt.map(KeysCommand.List.format) ?? "never", KeysCommand.List.format(activity.createdAt),
                ]
            }
            print(Table.render(header: ["ACTIVITY", "TYPE", "STATE", "TOKENS", "LAST UPDATE", "CREATED"], rows: rows))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One activity and its latest updates.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The activity's ID.") var activityID: String

        func run() async throws {
            let (configuration, logger) = try options.load()
            let (bundleID, activityID) = (self.bundleID, try LiveActivitiesCommand.activityID(self.activityID))
            let (activity, updates) = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard let activity = try await store.liveActivities.activity(appID: app.id, activityID: activityID, now: Date())
                else { throw CLIError("no activity \(activityID) in \(bundleID)") }
                return (activity, try await store.liveActivities.updates(appID: app.id, activityID: activityID, beforeID: nil, limit: 20))
            }
            print(
                "\(activity.activityID): \(activity.state.rawValue), \(activity.tokenCount) update tokens, "
                    + "type \(activity.attributesType ?? "unknown"), last aps.timestamp \(activity.lastTimestamp)")
            let rows = updates.map { update in
                [
                    String(update.id), update.request.event.rawValue, update.state.rawValue, String(update.timestamp),
                    String(update.priority.rawValue) + (update.priorityLowered ? " (lowered)" : ""), String(update.counts.accepted),
                    String(update.counts.failed), String(update.counts.dropped), String(update.counts.superseded),
                ]
            }
            print(
                Table.render(
                    header: ["UPDATE", "EVENT", "STATE", "TIMESTAMP", "PRIORITY", "ACCEPTED", "FAILED", "DROPPED", "SUPERSEDED"],
                    rows: rows))
        }
    }

    /// What `update` and `end` share: the activity, its content state and an optional alert.
    struct Content: ParsableArguments {
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The activity's ID.") var activityID: String
        @Option(help: "The ContentState as a JSON object.") var contentState: String
        @Option(help: "An alert's title (with --alert-body).") var alertTitle: String?
        @Option(help: "An alert's body (with --alert-title).") var alertBody: String?
        @Option(help: "The alert's sound.") var sound: String?
        @Option(help: "A key that makes a repeated command answer the first update.") var idempotencyKey: String?

        func request(event: Payload.LiveActivityEvent) throws -> LiveActivityUpdateRequest {
            guard case .object(let state)? = try? JSONReader.parse(contentState.utf8) else {
                throw CLIError("--content-state: must be a JSON object")
            }
            var alert: LiveActivityUpdateRequest.Alert?
            switch (alertTitle, alertBody) {
            case (let title?, let body?):
                alert = .text(Payload.LiveActivityAlert(title: .plain(title), body: .plain(body), sound: sound))
            case (nil, nil):
                if sound != nil { throw CLIError("--sound: needs --alert-title and --alert-body") }
            default:
                throw CLIError("--alert-title and --alert-body: give both or neither")
            }
            return LiveActivityUpdateRequest(event: event, contentState: state, alert: alert, idempotencyKey: idempotencyKey)
        }

        func submit(_ request: LiveActivityUpdateRequest, options: CommonOptions) async throws {
            let (configuration, logger) = try options.load()
            let (bundleID, activityID) = (self.bundleID, try LiveActivitiesCommand.activityID(self.activityID))
            let result = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                let updater = LiveActivityUpdater(activities: store.liveActivities, templates: store.templates)
                do {
                    return try await updater.submit(app: app, activityID: activityID, request: request, actor: cliActor)
                } catch let error as HeraldCore.ValidationError {
                    throw CLIError(error, flags: ["dismissalDate": "--dismissal-date", "staleDate": "--stale-date"])
                }
            }
            switch result {
            case .queued(let update), .repeated(let update):
                print(
                    "Update \(update.id) of \(activityID) \(update.state.rawValue): aps.timestamp \(update.timestamp), "
                        + "priority \(update.priority.rawValue)\(update.priorityLowered ? " (10 asked beyond the hourly allowance)" : "").")
            case .unknownActivity:
                throw CLIError("no update token was registered under \(activityID) in \(bundleID)")
            case .ended:
                throw CLIError("\(activityID) has ended: it takes no more updates")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue an update to every device the activity runs on.")

        @OptionGroup var options: CommonOptions
        @OptionGroup var content: Content
        @Option(help: "When the activity shows as stale (RFC 3339).") var staleDate: String?
        @Option(help: "Orders the app's activities.") var relevanceScore: Double?
        @Option(help: "10 to ask for immediate delivery within the app's allowance; 5 otherwise.") var priority: Int?

        func run() async throws {
            var request = try content.request(event: .update)
            request.staleDate = try staleDate.map(LiveActivitiesCommand.date(flag: "--stale-date"))
            request.relevanceScore = relevanceScore
            if let priority {
                guard priority == 5 || priority == 10 else { throw CLIError("--priority: must be 5 or 10") }
                request.priority = Priority(rawValue: priority)
            }
            try await content.submit(request, options: options)
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End the activity on every device; nothing is sent after it.")

        @OptionGroup var options: CommonOptions
        @OptionGroup var content: Content
        @Option(help: "When the ended activity leaves the Lock Screen (RFC 3339); a past time removes it at once.")
        var dismissalDate: String?

        func run() async throws {
            var request = try content.request(event: .end)
            request.dismissalDate = try dismissalDate.map(LiveActivitiesCommand.date(flag: "--dismissal-date"))
            try await content.submit(request, options: options)
        }
    }

    static func app(_ bundleID: String, in store: Store) async throws -> App {
        guard let app = try await store.apps.find(bundleID: bundleID) else { throw CLIError("no app has the bundle ID \(bundleID)") }
        return app
    }

    static func activityID(_ text: String) throws -> String {
        if let problem = LiveActivityRules.activityIDProblem(text) { throw CLIError("ACTIVITY_ID: \(problem)") }
        return text
    }

    static func date(flag: String) -> (String) throws -> Date {
        { text in
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw CLIError("\(flag): must be an RFC 3339 time such as 2026-12-01T09:00:00Z")
            }
            return date
        }
    }
}
