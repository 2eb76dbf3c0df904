import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore
import HeraldTemplates

struct TemplatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates", abstract: "Store templates from a folder as immutable versions, and list them.",
        subcommands: [Sync.self, List.self])

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
            let lines = try await Store.with(configuration, logger: logger) { store in
                var lines = [String]()
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
                        let (record, created) = try await store.templates.save(template, createdBy: cliActor)
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
            let templates = try await Store.with(configuration, logger: logger) { try await $0.templates.list() }
            let rows = templates.map { template in
                [
                    template.name, "v\(template.latestVersion)", String(template.versionCount),
                    template.languages.joined(separator: " "),
                ]
            }
            print(Table.render(header: ["NAME", "LATEST", "VERSIONS", "LANGUAGES"], rows: rows))
        }
    }
}
