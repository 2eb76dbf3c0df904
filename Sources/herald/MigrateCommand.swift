import HeraldStore
import ArgumentParser

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations (each in one transaction; safe to run from several instances at once).")

    @OptionGroup var options: CommonOptions

    func run() async throws {
        let (configuration, logger) = try options.load()
        let applied = try await Store.with(configuration, logger: logger) { store in
            try await store.migrator.migrate()
        }
        print(applied.isEmpty ? "Schema is current." : "Applied \(applied.count): \(applied.joined(separator: ", "))")
    }
}
