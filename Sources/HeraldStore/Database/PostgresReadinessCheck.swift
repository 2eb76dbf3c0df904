import HeraldCore
import Logging
import PostgresNIO

/// Ready when PostgreSQL answers and every migration file has been applied unchanged.
public struct PostgresReadinessCheck: ReadinessCheck {
    let runner: MigrationRunner

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        runner = MigrationRunner(client: client, migrations: migrations, logger: logger)
    }

    public func notReadyReason() async -> String? {
        do {
            let pending = try await runner.pending()
            return pending.isEmpty ? nil : "migrations not applied: \(pending.joined(separator: ", "))"
        } catch let error as MigrationError {
            return error.description
        } catch {
            return "database unreachable"
        }
    }
}
