import Foundation
import HeraldStore
import Logging
import PostgresNIO

/// The PostgreSQL side of one Herald process: one connection pool and the repositories on it.
public struct Store: Sendable {
    public let client: PostgresClient
    public let apps: PostgresAppRepository
    public let devices: PostgresDeviceRepository
    public let pruner: PostgresDevicePruner
    public let keys: PostgresAPIKeyRepository
    public let audit: PostgresAuditRepository
    public let ledger: PostgresLedgerRepository
    public let retention: PostgresRetention
    public let templates: PostgresTemplateRepository
    public let campaigns: PostgresCampaignRepository
    public let campaignWork: PostgresCampaignWork
    public let events: PostgresEventRepository
    public let directSends: PostgresDirectSendLedger
    public let liveActivities: PostgresLiveActivityRepository
    public let liveActivityWork: PostgresLiveActivityWork
    public let channels: PostgresBroadcastChannelRepository
    public let segments: PostgresSegments
    public let series: PostgresCampaignSeries
    public let journeys: PostgresJourneys
    public let journeyWork: PostgresJourneyWork
    /// The provider tokens shared between instances; nil without `HERALD_SECRET_KEY`.
    let providerTokens: PostgresProviderTokens?
    public let users: PostgresConsoleUserRepository
    public let sessions: PostgresConsoleSessionRepository
    public let webhooks: PostgresWebhookStore
    public let changes: ChangeFeed
    public let migrator: MigrationRunner
    public let readiness: PostgresReadinessCheck
    /// Where the database is, for messages.
    public let url: DatabaseURL

    public init(configuration: HeraldConfiguration, logger: Logger) throws {
        let url = try configuration.requireDatabaseURL()
        self.url = url
        let migrations = try Migration.load(from: try Self.migrationsDirectory(configured: configuration.migrationsDirectory))
        let previous = configuration.previousSecretKeys
        let vault = try configuration.secretKey.map { try SigningKeyVault(base64Secret: $0, previous: previous) }
        client = PostgresClient(
            configuration: url.clientConfiguration(
                maxConnections: configuration.databaseMaxConnections,
                statementTimeout: configuration.databaseStatementTimeoutMilliseconds),
            backgroundLogger: logger.forDatabase)
        DatabaseMetrics.recordPoolSize(configuration.databaseMaxConnections)
        apps = PostgresAppRepository(client: client, vault: vault, logger: logger)
        devices = PostgresDeviceRepository(client: client, logger: logger, writers: configuration.registrationWriters)
        pruner = PostgresDevicePruner(client: client, batchSize: configuration.pruneBatchSize, logger: logger)
        keys = PostgresAPIKeyRepository(client: client, logger: logger)
        audit = PostgresAuditRepository(client: client, logger: logger)
        ledger = PostgresLedgerRepository(client: client, logger: logger)
        retention = PostgresRetention(client: client, logger: logger)
        templates = PostgresTemplateRepository(client: client, logger: logger)
        campaigns = PostgresCampaignRepository(client: client, logger: logger)
        campaignWork = PostgresCampaignWork(client: client, logger: logger)
        let journeyDefinitions = JourneyDefinitions()
        events = PostgresEventRepository(client: client, journeyDefinitions: journeyDefinitions, logger: logger)
        journeys = PostgresJourneys(client: client, logger: logger)
        journeyWork = PostgresJourneyWork(client: client, definitions: journeyDefinitions, logger: logger)
        directSends = PostgresDirectSendLedger(client: client, logger: logger)
        liveActivities = PostgresLiveActivityRepository(client: client, logger: logger)
        liveActivityWork = PostgresLiveActivityWork(client: client, logger: logger)
        channels = PostgresBroadcastChannelRepository(client: client, logger: logger)
        segments = PostgresSegments(client: client, logger: logger)
        series = PostgresCampaignSeries(client: client, logger: logger)
        let pool = client
        providerTokens = vault.map { PostgresProviderTokens(client: pool, vault: $0, logger: logger) }
        users = PostgresConsoleUserRepository(client: client, logger: logger)
        sessions = PostgresConsoleSessionRepository(client: client, logger: logger)
        webhooks = PostgresWebhookStore(client: client, vault: vault, logger: logger)
        changes = ChangeFeed(client: client)
        migrator = MigrationRunner(client: client, migrations: migrations, logger: logger)
        readiness = PostgresReadinessCheck(client: client, migrations: migrations, logger: logger)
    }

    /// Runs `body` with the pool running, then shuts the pool down.
    public static func with<Result: Sendable>(
        _ configuration: HeraldConfiguration, logger: Logger, _ body: @Sendable (Store) async throws -> Result
    ) async throws -> Result {
        let store = try Store(configuration: configuration, logger: logger)
        // One connection first: a database that cannot be reached is one line saying where and why.
        try await DatabaseProbe.check(store.url, logger: logger.forDatabase)
        do {
            return try await store.client.whileRunning { try await body(store) }
        } catch {
            if let failure = PostgresErrors.serverError(error) { throw DatabaseFailure(failure) }
            if let lost = DatabaseFailure(lostConnection: error, to: store.url) { throw lost }
            throw error
        }
    }

    /// `HERALD_MIGRATIONS_DIR`, else `migrations/` in the working directory or above the binary
    /// (a checkout's `.build/…/herald`), else the packaged location.
    static func migrationsDirectory(configured: String?) throws -> URL {
        if let configured { return URL(fileURLWithPath: configured) }
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: "/usr/share/herald"))
        for candidate in candidates {
            let migrations = candidate.appendingPathComponent("migrations")
            if FileManager.default.fileExists(atPath: migrations.appendingPathComponent("0001_create_registry.sql").path) {
                return migrations
            }
        }
        throw ConfigurationError.missing("HERALD_MIGRATIONS_DIR", "the folder holding migrations/NNNN_*.sql")
    }
}

/// A database error in one line, without SQL or parameters.
struct DatabaseFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ error: PSQLError) {
        if let message = error.serverInfo?[.message] {
            description = "PostgreSQL refused: \(message)"
        } else {
            description = "cannot talk to PostgreSQL (\(error.code.description)); check HERALD_DATABASE_URL and that the server runs"
        }
    }

    /// The connection went away during the command (the server stopped, the network broke).
    public init?(lostConnection error: any Error, to url: DatabaseURL) {
        let lost: Bool
        if let error = error as? PSQLError {
            lost = [.connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code)
        } else {
            // postgres-nio's pool module is not a product Herald imports: told apart by its name.
            lost = String(describing: type(of: error)) == "ConnectionPoolError"
        }
        guard lost else { return nil }
        description = "lost the connection to PostgreSQL at \(url.address) during the command; nothing after the last change it printed is certain"
    }
}
