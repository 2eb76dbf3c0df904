import APNSCore
import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

/// `herald journeys`: an app's journeys (docs/journeys.md): list, show with the report, save
/// from a JSON file, change into a new version, and steer.
struct JourneysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journeys", abstract: "Save, version, steer and report an app's journeys.",
        subcommands: [List.self, Show.self, Create.self, Update.self, Steer.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The app's journeys, by name.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String

        func run() async throws {
            let (configuration, logger) = try options.load()
            let bundleID = self.bundleID
            let journeys = try await Store.with(configuration, logger: logger) { store in
                try await store.journeys.journeys(appID: try await LiveActivitiesCommand.app(bundleID, in: store).id)
            }
            print(
                Table.render(
                    header: ["NAME", "STATE", "VERSION", "LIVE", "UPDATED"],
                    rows: journeys.map {
                        [
                            $0.name, $0.state.rawValue, String($0.version), $0.liveVersion.map(String.init) ?? "-",
                            KeysCommand.List.format($0.updatedAt),
                        ]
                    }))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A journey's state and its report: per step who came, who waits and where they went.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The journey's name.") var name: String
        @Option(help: "This version's graph and entrants only.") var version: Int?
        @Flag(help: "Print the graph's JSON instead of the report.") var json = false

        func run() async throws {
            if let version, version < 1 { throw CLIError("--version: must be 1 or more") }
            let (configuration, logger) = try options.load()
            let (bundleID, name, version) = (self.bundleID, self.name, self.version)
            let (journey, report) = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard let journey = try await store.journeys.journey(appID: app.id, name: name, version: version) else {
                    throw CLIError("NAME: \(bundleID) has no journey \(name)\(version.map { " version \($0)" } ?? "")")
                }
                return (journey, try await store.journeys.report(journeyID: journey.id, version: version))
            }
            if json {
                print(try CanonicalJSON.text(journey.definition, pretty: true))
                return
            }
            print(
                "\(journey.name): \(journey.state.rawValue), version \(journey.version)"
                    + (journey.liveVersion.map { ", live \($0)" } ?? ""))
            print(JourneysCommand.summary(report))
            print(
                Table.render(
                    header: ["STEP", "KIND", "ENTERED", "WAITING", "PATHS", "SENT", "OPENED", "CONVERTED"],
                    rows: report.steps.map { step in
                        let sends = step.kind == "send"
                        return [
                            step.id, step.kind, String(step.entered), String(step.waiting),
                            step.paths.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
                            sends ? String(step.deliveries["accepted"] ?? 0) : "", sends ? String(step.opened) : "",
                            sends ? String(step.converted) : "",
                        ]
                    }))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save a journey (a draft, version 1) from a JSON file.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The journey's name.") var name: String
        @Option(help: "The graph as JSON (docs/journeys.md); - reads standard input.") var file: String
        @Option(help: "What the journey is for.") var description: String?

        func run() async throws {
            if let problem = Journey.nameProblem(name) { throw CLIError("NAME: \(problem)") }
            let definition = try JourneysCommand.read(file)
            let (configuration, logger) = try options.load()
            let (bundleID, name, description) = (self.bundleID, self.name, self.description)
            let saved = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try JourneysCommand.saved(
                    try await store.journeys.create(
                        appID: app.id, name: name, description: description, definition: definition, actor: cliActor),
                    bundleID: bundleID, name: name)
            }
            print("\(saved.name): version \(saved.version), \(saved.state.rawValue)")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a new graph as the next version (new entrants take it), or change the description.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The journey's name.") var name: String
        @Option(help: "The new graph as JSON; - reads standard input.") var file: String?
        @Option(help: "The new description (empty clears it).") var description: String?

        func run() async throws {
            guard file != nil || description != nil else { throw CLIError("give --file or --description") }
            let definition = try file.map(JourneysCommand.read)
            let change: String?? = description.map { $0.isEmpty ? .some(nil) : .some($0) } ?? nil
            let (configuration, logger) = try options.load()
            let (bundleID, name) = (self.bundleID, self.name)
            let saved = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try JourneysCommand.saved(
                    try await store.journeys.update(
                        appID: app.id, name: name, definition: definition, description: change, actor: cliActor),
                    bundleID: bundleID, name: name)
            }
            print("\(saved.name): version \(saved.version), \(saved.state.rawValue)")
        }
    }

    struct Steer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "steer", abstract: "activate, pause, resume or archive a journey.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "activate, pause, resume or archive.") var event: String
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The journey's name.") var name: String

        func run() async throws {
            guard let event = Journey.Event(rawValue: event) else {
                throw CLIError("EVENT: must be one of \(Journey.Event.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let (configuration, logger) = try options.load()
            let (bundleID, name) = (self.bundleID, self.name)
            let saved = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try JourneysCommand.saved(
                    try await store.journeys.transition(appID: app.id, name: name, event: event, actor: cliActor, now: Date()),
                    bundleID: bundleID, name: name)
            }
            print("\(saved.name): \(saved.state.rawValue)")
        }
    }

    static func saved(_ save: JourneySave, bundleID: String, name: String) throws -> Journey {
        switch save {
        case .saved(let journey): return journey
        case .nameTaken: throw CLIError("NAME: \(bundleID) already has a journey named \(name)")
        case .unknown: throw CLIError("NAME: \(bundleID) has no journey \(name)")
        case .invalid(let error): throw CLIError("\(error.field): \(error.reason)")
        case .notNow(let state): throw CLIError("not allowed while the journey is \(state.rawValue)")
        }
    }

    /// The graph in `file` (`-`: standard input), or a one-line error naming its JSON path.
    static func read(_ file: String) throws -> PayloadValue {
        let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
        guard let data else { throw CLIError("--file: cannot read \(file)") }
        do {
            return try JourneyFile.journey(json: Array(data))
        } catch let error as CampaignFileError {
            throw CLIError("\(file == "-" ? "standard input" : file): \(error.description)")
        }
    }

    /// Entrants, held out, inside, and the goal for each.
    static func summary(_ report: JourneyReport) -> String {
        func rate(_ count: Int, _ total: Int) -> String {
            total > 0 ? String(format: "%.1f %%", 100 * Double(count) / Double(total)) : "-"
        }
        return "\(report.entrants) entrants (\(report.inside) inside), \(report.heldOut) held out; goal reached by "
            + "\(report.goals) (\(rate(report.goals, report.entrants))) vs \(report.heldOutGoals) held out "
            + "(\(rate(report.heldOutGoals, report.heldOut)))"
    }
}
