import APNSCore
import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

/// `herald series`: recurring campaigns (docs/campaigns.md "Recurring campaigns"): create from
/// the JSON `POST /v1/series` takes, list, show with each run's outcome, pause, resume, stop.
struct SeriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "series", abstract: "Create, list, show, pause, resume and stop recurring campaigns.",
        subcommands: [Create.self, List.self, Show.self, Pause.self, Resume.self, Stop.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a series from a JSON file (the body POST /v1/series takes) and print its ID.")

        @OptionGroup var options: CommonOptions
        @Option(help: "The series as JSON: app, name, campaign, schedule.") var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("--file: cannot read \(file)") }
            let (configuration, logger) = try options.load()
            let file = self.file
            let series = try await Store.with(configuration, logger: logger) { store in
                let now = Date()
                let read: (name: String, blueprint: CampaignDraft, recurrence: Recurrence)
                do {
                    read = try await SeriesFile.series(json: Array(data), now: now) { try await store.apps.find(bundleID: $0) }
                } catch let error as CampaignFileError {
                    throw CLIError("\(file): \(error.description)")
                }
                do {
                    return try await store.series.create(
                        name: read.name, blueprint: read.blueprint, recurrence: read.recurrence, actor: cliActor, now: now)
                } catch let error as HeraldCore.ValidationError {
                    throw CLIError("\(file): \(error.field): \(error.reason)")
                } catch let error as CampaignError {
                    throw CLIError("\(file): \(error.description)")
                }
            }
            print(series.publicID.canonicalString)
            FileHandle.standardError.write(Data("\(series.name): \(SeriesCommand.next(series))\n".utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Recurring campaigns, newest first.")

        @OptionGroup var options: CommonOptions
        @Option(help: "Only this app's (bundle ID).") var app: String?

        func run() async throws {
            let (configuration, logger) = try options.load()
            let bundleID = self.app
            let rows = try await Store.with(configuration, logger: logger) { store in
                var appIDs: [Int64]?
                if let bundleID { appIDs = [try await LiveActivitiesCommand.app(bundleID, in: store).id] }
                var rows = [[String]]()
                for series in try await store.series.list(appIDs: appIDs, limit: 200) {
                    let app = try await store.apps.find(id: series.appID)
                    rows.append([
                        series.publicID.canonicalString, app?.bundleID ?? "?", series.name, series.state.rawValue,
                        series.recurrence.summary, String(series.runsStarted), SeriesCommand.next(series),
                    ])
                }
                return rows
            }
            print(Table.render(header: ["ID", "APP", "NAME", "STATE", "SCHEDULE", "STARTED", "NEXT"], rows: rows))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A series and each of its runs, newest first.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The series' ID.") var id: String

        func run() async throws {
            let publicID = try SeriesCommand.id(id)
            let (configuration, logger) = try options.load()
            let (series, runs) = try await Store.with(configuration, logger: logger) { store in
                guard let series = try await store.series.get(publicID: publicID) else { throw CLIError("ID: no series \(publicID)") }
                return (series, try await store.series.runs(seriesID: series.id, limit: 200))
            }
            print("\(series.name): \(series.state.rawValue), \(series.recurrence.summary)")
            print("template \(series.blueprint.templateName); \(series.runsStarted) runs started; \(SeriesCommand.next(series))")
            print(
                Table.render(
                    header: ["RUN", "DATE", "DUE", "OUTCOME", "CAMPAIGN", "REASON"],
                    rows: runs.map {
                        [
                            String($0.run), $0.date, KeysCommand.List.format($0.due), $0.outcome.rawValue,
                            $0.campaignID?.canonicalString ?? "", $0.reason ?? "",
                        ]
                    }))
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start no run until resumed.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The series' ID.") var id: String
        func run() async throws { try await SeriesCommand.apply(.pause, id: id, options: options) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Go on from the next run whose hour has not passed.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The series' ID.") var id: String
        func run() async throws { try await SeriesCommand.apply(.resume, id: id, options: options) }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start no run again (runs under way go on).")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The series' ID.") var id: String
        func run() async throws { try await SeriesCommand.apply(.stop, id: id, options: options) }
    }

    static func apply(_ event: CampaignSeries.Event, id text: String, options: CommonOptions) async throws {
        let publicID = try id(text)
        let (configuration, logger) = try options.load()
        let series = try await Store.with(configuration, logger: logger) { store in
            do {
                guard let series = try await store.series.transition(publicID: publicID, event: event, actor: cliActor, now: Date())
                else { throw CLIError("ID: no series \(publicID)") }
                return series
            } catch let error as SeriesError {
                throw CLIError(error.description)
            }
        }
        print("\(series.name): \(series.state.rawValue); \(next(series))")
    }

    static func id(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw CLIError("ID: not a series ID (a UUID)") }
        return id
    }

    static func next(_ series: CampaignSeries) -> String {
        series.next.map { "next run \($0.date), due \(KeysCommand.List.format($0.due))" } ?? "no run left"
    }
}
