import APNSCore
import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

/// `herald segments`: an app's saved segments (docs/segments.md): list, show with the live
/// count and a sample, save, change into a new version, archive, and count one not saved.
struct SegmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segments", abstract: "Save, version, count and archive an app's audience segments.",
        subcommands: [List.self, Show.self, Create.self, Update.self, Delete.self, Count.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The app's live segments, by name.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String

        func run() async throws {
            let (configuration, logger) = try options.load()
            let bundleID = self.bundleID
            let segments = try await Store.with(configuration, logger: logger) { store in
                try await store.segments.segments(appID: try await LiveActivitiesCommand.app(bundleID, in: store).id)
            }
            print(
                Table.render(
                    header: ["NAME", "VERSION", "UPDATED", "DESCRIPTION"],
                    rows: segments.map {
                        [$0.name, String($0.version), KeysCommand.List.format($0.updatedAt), $0.description ?? ""]
                    }))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A segment's conditions, how many devices it matches now, and a sample of them.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The segment's name.") var name: String
        @Option(help: "This version instead of the latest.") var version: Int?
        @Option(help: "How many matching devices to show (0 to 50).") var sample = 5

        func run() async throws {
            guard (0...50).contains(sample) else { throw CLIError("--sample: must be 0 to 50") }
            if let version, version < 1 { throw CLIError("--version: must be 1 or more") }
            let (configuration, logger) = try options.load()
            let (bundleID, name, version, sample) = (self.bundleID, self.name, self.version, self.sample)
            let (saved, count, devices) = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard let saved = try await store.segments.segment(appID: app.id, name: name, version: version) else {
                    throw CLIError("NAME: \(bundleID) has no segment \(name)\(version.map { " version \($0)" } ?? "")")
                }
                let (count, devices) = try await store.segments.evaluate(
                    appID: app.id, segment: saved.segment, sample: sample, now: Date())
                return (saved, count, devices)
            }
            print("\(saved.name) (version \(saved.version)): \(count) devices match now")
            if let description = saved.description { print(description) }
            print(SegmentsCommand.text(saved.segment))
            if !devices.isEmpty {
                print(
                    Table.render(
                        header: ["TOKEN", "ENVIRONMENT", "LANGUAGES", "ZONE"],
                        rows: devices.map {
                            [
                                "…" + String($0.token.hex.suffix(8)), $0.environment.rawValue, $0.languages.map(\.value).joined(separator: ","),
                                $0.timeZone ?? "",
                            ]
                        }))
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save a segment (version 1) from a JSON file.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The segment's name.") var name: String
        @Option(help: "The segment's conditions as JSON (docs/segments.md); - reads standard input.") var file: String
        @Option(help: "What the segment is for.") var description: String?

        func run() async throws {
            if let problem = SavedSegment.nameProblem(name) { throw CLIError("NAME: \(problem)") }
            let segment = try SegmentsCommand.read(file)
            let (configuration, logger) = try options.load()
            let (bundleID, name, description) = (self.bundleID, self.name, self.description)
            let saved = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                switch try await store.segments.create(
                    appID: app.id, name: name, description: description, segment: segment, actor: cliActor)
                {
                case .saved(let saved): return saved
                case .nameTaken: throw CLIError("NAME: \(bundleID) already has a segment named \(name)")
                case .unknown: throw CLIError("NAME: the segment could not be saved")
                }
            }
            print("\(saved.name): version \(saved.version)")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save new conditions as the next version, or change the description in place.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The segment's name.") var name: String
        @Option(help: "The new conditions as JSON; - reads standard input.") var file: String?
        @Option(help: "The new description (empty clears it).") var description: String?

        func run() async throws {
            guard file != nil || description != nil else { throw CLIError("give --file or --description") }
            let segment = try file.map(SegmentsCommand.read)
            let change: String?? = description.map { $0.isEmpty ? .some(nil) : .some($0) } ?? nil
            let (configuration, logger) = try options.load()
            let (bundleID, name) = (self.bundleID, self.name)
            let saved = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard
                    case .saved(let saved) = try await store.segments.update(
                        appID: app.id, name: name, segment: segment, description: change, actor: cliActor)
                else { throw CLIError("NAME: \(bundleID) has no segment \(name)") }
                return saved
            }
            print("\(saved.name): version \(saved.version)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archive a segment: its versions stay for the campaigns that pinned them; its name is free again.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The segment's name.") var name: String

        func run() async throws {
            let (configuration, logger) = try options.load()
            let (bundleID, name) = (self.bundleID, self.name)
            try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                guard try await store.segments.archive(appID: app.id, name: name, actor: cliActor) else {
                    throw CLIError("NAME: \(bundleID) has no segment \(name)")
                }
            }
            print("\(name): archived")
        }
    }

    struct Count: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "How many devices a segment not saved matches now.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "The conditions as JSON; - reads standard input.") var file: String

        func run() async throws {
            let segment = try SegmentsCommand.read(file)
            let (configuration, logger) = try options.load()
            let bundleID = self.bundleID
            let count = try await Store.with(configuration, logger: logger) { store in
                let app = try await LiveActivitiesCommand.app(bundleID, in: store)
                return try await store.segments.evaluate(appID: app.id, segment: segment, sample: 0, now: Date()).count
            }
            print(count)
        }
    }

    /// The segment in `file` (`-`: standard input), or a one-line error naming its JSON path.
    static func read(_ file: String) throws -> Segment {
        let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
        guard let data else { throw CLIError("--file: cannot read \(file)") }
        do {
            return try SegmentFile.segment(json: Array(data))
        } catch let error as CampaignFileError {
            throw CLIError("\(file == "-" ? "standard input" : file): \(error.description)")
        }
    }

    /// The conditions as compact JSON.
    static func text(_ segment: Segment) -> String {
        (try? CanonicalJSON.text(segment.json)) ?? "{}"
    }
}
