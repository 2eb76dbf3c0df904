import ArgumentParser
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore
import HeraldTemplates

struct TemplatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates", abstract: "Store templates from a folder as immutable versions, and list them.",
        subcommands: [Sync.self, List.self, SetApp.self])

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load every template folder in DIR and store a new version of each template that changed.",
            discussion: """
                Every problem in every template is printed as path:line: message and nothing is stored \
                until the whole folder is valid.
                """)

        @OptionGroup var options: CommonOptions
        @Argument(help: "The templates folder: one folder per template, each with a template.json.") var directory: String
        @Flag(help: "Check the folder and say what would change; store nothing.") var dryRun = false
        @Option(help: "The app new templates belong to (bundle ID); without it they are shared by every app.")
        var app: String?

        func run() async throws {
            let folder = URL(fileURLWithPath: directory)
            var compiled = [CompiledTemplate]()
            do throws(TemplateLoadError) {
                for document in try TemplateLoader.load(directory: folder) {
                    compiled.append(try CompiledTemplate(document))
                }
            } catch {
                Self.report(error.problems, directory: directory, folder: folder)
                throw ExitCode.failure
            }

            let (configuration, logger) = try options.load()
            let templates = compiled
            let isDryRun = self.dryRun
            let owner = app
            let lines = try await Store.with(configuration, logger: logger) { store in
                var lines = [String]()
                var appID: Int64?
                if let owner { appID = try await store.requireApp(owner).id }
                for template in templates {
                    if isDryRun {
                        let latest = try await store.templates.latest(name: template.name)
                        let hash = PostgresTemplateRepository.contentHash(of: Array(template.document.canonicalJSON()))
                        if let latest, latest.contentHash == hash {
                            lines.append("\(template.name): v\(latest.version) (unchanged)")
                        } else {
                            lines.append("\(template.name): v\((latest?.version ?? 0) + 1) (would be new)")
                        }
                    } else {
                        let record: TemplateVersionRecord
                        let created: Bool
                        do {
                            (record, created) = try await store.templates.save(template, createdBy: cliActor, appID: appID)
                        } catch let error as HeraldCore.ValidationError {
                            throw CLIError("\(template.name): \(error.reason); nothing more stored (use --app, or herald templates set-app)")
                        }
                        lines.append("\(record.name): v\(record.version) (\(created ? "new" : "unchanged"))")
                    }
                }
                return lines
            }
            for line in lines { print(line) }
            if dryRun { print("Dry run: nothing stored.") }
        }

        /// Every problem on standard error as `path:line: message`, paths as the user can open them.
        static func report(_ problems: [TemplateProblem], directory: String, folder: URL) {
            var base = directory
            while base.count > 1, base.hasSuffix("/") { base.removeLast() }
            var lines = problems.map { problem -> String in
                var located = problem
                if !problem.file.hasPrefix("/"), problem.file != folder.path {
                    located.file = base + "/" + problem.file
                }
                return located.description
            }
            let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
            lines.append("\(count); nothing stored.")
            FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List templates with their latest version and languages.")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let (configuration, logger) = try options.load()
            let (templates, apps) = try await Store.with(configuration, logger: logger) { store in
                (try await store.templates.list(), try await store.apps.list())
            }
            let bundles = Dictionary(uniqueKeysWithValues: apps.map { ($0.id, $0.bundleID) })
            let rows = templates.map { template in
                [
                    template.name, template.appID.flatMap { bundles[$0] } ?? "shared", "v\(template.latestVersion)",
                    String(template.versionCount), template.languages.joined(separator: " "),
                ]
            }
            print(Table.render(header: ["NAME", "APP", "LATEST", "VERSIONS", "LANGUAGES"], rows: rows))
        }
    }

    struct SetApp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-app", abstract: "Give a template to an app, or share it with every app ('shared').")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The template's name.") var name: String
        @Argument(help: "The app's bundle ID, or 'shared'.") var app: String

        func run() async throws {
            let (configuration, logger) = try options.load()
            let changed = try await Store.with(configuration, logger: logger) { store in
                var appID: Int64?
                if app != "shared" { appID = try await store.requireApp(app).id }
                return try await store.templates.setOwner(name: name, appID: appID, actor: cliActor)
            }
            guard changed else { throw CLIError("no template is named \(name)") }
            print(app == "shared" ? "\(name) is shared by every app." : "\(name) belongs to \(app).")
        }
    }
}
