import ArgumentParser
import HeraldServer
import HeraldStore

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations (each in one transaction; safe to run from several instances at once).",
        discussion: """
            On a Citus coordinator (a database with the citus extension) it then distributes Herald's \
            tables over the workers, in place, once (docs/scaling.md, "Moving to a cluster").
            """)

    @OptionGroup var options: CommonOptions

    @Flag(help: "Require a Citus cluster: fail instead of doing nothing when the database has no citus extension.")
    var citus = false

    func run() async throws {
        let (configuration, logger) = try options.load()
        try await Store.with(configuration, logger: logger) { store in
            let applied = try await store.migrator.migrate()
            print(applied.isEmpty ? "Schema is current." : "Applied \(applied.count): \(applied.joined(separator: ", "))")
            let conversion = CitusConversion(client: store.client, logger: logger)
            guard let version = try await conversion.citusVersion() else {
                if citus { throw CitusConversionError.notInstalled }
                return
            }
            let report = try await conversion.convert(after: store.migrator)
            guard !report.isEmpty else {
                print("Citus \(version): the tables are distributed already.")
                return
            }
            print(
                """
                Citus \(version): distributed by part \(report.distributed.count) (\(report.distributed.joined(separator: ", "))), \
                reference tables \(report.reference.count), on the coordinator \(report.coordinator.count); \
                foreign keys restored \(report.foreignKeysRestored)\
                \(report.foreignKeysLeftOut.isEmpty ? "" : ", left out \(report.foreignKeysLeftOut.count) (\(report.foreignKeysLeftOut.joined(separator: ", ")))").
                """)
        }
    }
}
