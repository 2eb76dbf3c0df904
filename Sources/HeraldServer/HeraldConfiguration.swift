import Configuration
import Foundation
import HeraldAPI
import HeraldConsole
import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging

/// Every setting Herald reads, with its default. Values come from command-line flags, then
/// environment variables (`HERALD_…`), then these defaults; README "Configuration" lists them.
public struct HeraldConfiguration: Sendable {
    /// `HERALD_DATABASE_URL`: postgres://user:password@host:port/database[?sslmode=…&sslrootcert=…&connect_timeout=…],
    /// with libpq's meanings (docs/admin.md "Connecting to PostgreSQL").
    public var databaseURL: String?
    /// `HERALD_DATABASE_MAX_CONNECTIONS`: the PostgreSQL pool size of one process.
    var databaseMaxConnections = 20
    /// `HERALD_REGISTRATION_WRITERS`: registration statements one process runs at once;
    /// registrations that arrive meanwhile are written together by the next (docs/architecture.md
    /// "Registrations written together").
    var registrationWriters = 2
    /// `HERALD_DATABASE_STATEMENT_TIMEOUT_MS`: the longest one SQL statement may run (0: no limit).
    public var databaseStatementTimeoutMilliseconds = 30_000
    /// `HERALD_HTTP_IDLE_TIMEOUT_MS`: a connection that sends nothing (not even a whole request
    /// header) for this long is closed.
    var httpIdleTimeoutMilliseconds = 30_000
    /// `HERALD_HTTP_REQUEST_TIMEOUT_MS`: how long a request may take to arrive whole, head and body
    /// (device imports have their own bound).
    var httpRequestTimeoutMilliseconds = 60_000
    /// `HERALD_HTTP_MAX_CONNECTIONS`: connections served at once; more wait to be accepted.
    var httpMaxConnections = 1024
    /// `HERALD_IMPORT_MAX_BYTES`: the largest body one device import reads.
    var importMaximumBytes = 1 << 30
    /// `HERALD_IMPORT_MAX_SECONDS`: the longest one device import may run.
    var importMaximumSeconds = 3600
    /// `HERALD_IMPORT_CONCURRENCY`: device imports one instance runs at once (more get 429).
    var importConcurrency = 4
    /// `HERALD_API_RATE_LIMIT`: requests per second one API key may make, per instance (0: no limit).
    var apiRateLimit = 10_000
    /// `HERALD_API_RATE_BURST`: requests a key may make at once above its rate.
    var apiRateBurst = 20_000
    /// `HERALD_HTTP_HOST`
    var httpHost = "127.0.0.1"
    /// `HERALD_HTTP_PORT`
    var httpPort = 8080
    /// `HERALD_SECRET_KEY`: 32 bytes, base64; seals APNs signing keys in the database.
    public var secretKey: String?
    /// `HERALD_METRICS_TOKEN`: when set, `GET /metrics` needs `Authorization: Bearer <token>`
    /// (it names every app's bundle ID and traffic); unset, it is open like the other probes.
    var metricsToken: String?
    /// `HERALD_PREVIOUS_SECRET_KEYS`: earlier secrets, comma-separated, that still open stored
    /// credentials while `herald secrets rotate` moves them to `HERALD_SECRET_KEY`.
    var previousSecretKeys: [String] = []
    /// `HERALD_LOG_LEVEL`: trace, debug, info, notice, warning, error, critical.
    public var logLevel = Logger.Level.info
    /// `HERALD_MIGRATIONS_DIR`: where the `NNNN_*.sql` files are; found next to the binary's
    /// checkout or in the working directory when unset.
    var migrationsDirectory: String?
    /// `HERALD_AUTO_MIGRATE`: whether `herald serve` applies pending migrations before it listens.
    public var autoMigrate = true
    /// `HERALD_PRUNE_BATCH_SIZE`: devices deleted per statement when pruning.
    var pruneBatchSize = 1000

    /// `HERALD_ENGINE_ENABLED`: whether `herald serve` runs the campaign engine (false: API only).
    var engineEnabled = true
    /// `HERALD_ENGINE_WORKERS`: chunks one instance sends at once.
    public var engineWorkers = 4
    /// Live Activity updates one instance fans out at once (`HERALD_LIVE_ACTIVITY_WORKERS`).
    public var liveActivityWorkers = 2
    /// Update tokens read, sent and recorded together (`HERALD_LIVE_ACTIVITY_BATCH_SIZE`).
    public var liveActivityBatchSize = 2000
    /// Journey entries one instance claims and walks together (`HERALD_JOURNEY_BATCH_SIZE`).
    public var journeyBatchSize = 200
    /// Claimed batches of journey entries one instance walks at once (`HERALD_JOURNEY_CONCURRENCY`).
    public var journeyConcurrency = 4
    /// How often users matching a journey's entry segment are entered (`HERALD_JOURNEY_SEGMENT_SECONDS`).
    var journeySegmentSeconds = 60
    /// `HERALD_ENGINE_BATCH_SIZE`: devices read, rendered, sent and recorded together.
    public var engineBatchSize = DeliveryConfiguration.defaultBatchSize
    /// `HERALD_ENGINE_LEASE_SECONDS`: how long a crashed instance's chunks wait before another takes them.
    public var engineLeaseSeconds = 30
    /// `HERALD_ENGINE_POLL_MS`: how often an idle engine looks for due campaigns and free chunks.
    public var enginePollMilliseconds = 1000
    /// `HERALD_ENGINE_DEFERRED_ATTEMPTS`: tries a device answered 429 gets in one campaign.
    var engineDeferredAttempts = 3
    /// `HERALD_ENGINE_DEFERRED_RETRY_SECONDS`: the wait before a deferred device's second try; it doubles after.
    var engineDeferredRetrySeconds = 120
    /// `HERALD_CONSOLE_ENABLED`: whether `herald serve` serves the marketing console under `/console`.
    var consoleEnabled = true
    /// `HERALD_CONSOLE_SECURE_COOKIES`: mark the console's cookies Secure, except for a browser on
    /// this machine over plain HTTP (false: never; only for plain HTTP from elsewhere).
    var consoleSecureCookies = true
    /// `HERALD_CONSOLE_SESSION_IDLE_MINUTES`: a console session ends after this long without a request.
    var consoleSessionIdleMinutes = 720
    /// `HERALD_CONSOLE_SESSION_MAX_HOURS`: and this long after sign-in, whatever happens.
    var consoleSessionMaxHours = 168
    /// `HERALD_CONSOLE_LOGIN_ATTEMPTS_PER_MINUTE`: sign-in attempts one client address may make per minute.
    var consoleLoginAttemptsPerMinute = 10
    /// `HERALD_CONSOLE_TRUSTED_PROXIES`: comma-separated addresses of reverse proxies whose X-Forwarded-For is believed.
    var consoleTrustedProxies: Set<String> = []
    /// `HERALD_APNS_SHARDS`: sender shards per app and environment.
    public var apnsShards = 2
    /// `HERALD_APNS_CONNECTIONS_PER_SHARD`: HTTP/2 connections of each shard.
    public var apnsConnectionsPerShard = 1
    /// `HERALD_APNS_IN_FLIGHT_PER_SHARD`: notifications a shard holds on its connections at once.
    public var apnsInFlightPerShard = 1000
    /// `HERALD_APNS_EVENT_LOOPS`: event loops each sender's connections are spread over; 0 spreads them over all.
    public var apnsEventLoops = 1
    /// `HERALD_APNS_REQUEST_TIMEOUT_MS`: how long one attempt may wait for a stream and APNs's answer.
    var apnsRequestTimeoutMilliseconds = 30_000
    /// `HERALD_APNS_PING_TIMEOUT_MS`: how long a connection may leave a PING unanswered before it is closed.
    var apnsPingTimeoutMilliseconds = 10_000
    /// `HERALD_APNS_CREDENTIAL_RECHECK_MS`: how often a sender checks that its app's active
    /// credential is still the one it signs with, and that the app is not disabled.
    var credentialRecheckMilliseconds = 5_000
    /// `HERALD_API_KEY_CACHE_SECONDS`: how long a key that authenticated is remembered (0: not
    /// at all); a revocation is seen at once wherever the database's notification arrives.
    var apiKeyCacheSeconds = 10
    /// `HERALD_APP_CACHE_SECONDS`: how long the API remembers an app it looked up (0: read it
    /// for every request); a change to an app is seen at once wherever the database's
    /// notification arrives, and after this long where it does not.
    var appCacheSeconds = 5
    /// `HERALD_RETENTION_ENABLED`: whether `serve` (with the engine) deletes old ledger rows.
    var retentionEnabled = true
    /// How long each kind of row is kept: `HERALD_RETENTION_DELIVERIES_DAYS`, `…_NOTIFICATIONS_DAYS`,
    /// `…_TEST_DELIVERIES_DAYS`, `…_EVENTS_DAYS`, `…_AUDIT_DAYS`, `…_WEBHOOK_MESSAGES_DAYS`.
    public var retention = RetentionPolicy()
    /// `HERALD_RETENTION_FIRST_RUN_MINUTES`: the first run after start.
    var retentionFirstRunMinutes = 10
    /// `HERALD_RETENTION_INTERVAL_HOURS`: between runs.
    var retentionIntervalHours = 24
    /// `HERALD_RETENTION_BATCH_SIZE`: rows one delete statement takes.
    public var retentionBatchSize = 5_000
    /// `HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`: whether webhook endpoints may be loopback,
    /// private or link-local addresses (false: refused when added and whenever resolved).
    public var webhookAllowPrivateAddresses = false
    /// `HERALD_WEBHOOK_TIMEOUT_MS`: how long one webhook attempt may take, answer included.
    var webhookTimeoutMilliseconds = 10_000
    /// `HERALD_WEBHOOK_CONCURRENCY`: webhook messages one instance posts at once (at most a
    /// quarter of them, and no fewer than one, to one endpoint).
    var webhookConcurrency = 64

    /// For benchmarks: what they store is sealed with the instance secret, and a run without
    /// `HERALD_SECRET_KEY` makes a throwaway one.
    public mutating func useOwnSecretIfNone() {
        if secretKey == nil {
            secretKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        }
    }

    /// Reads the configuration; `overrides` are the flags given on the command line, keyed
    /// like the environment (`herald.http.port` ↔ `HERALD_HTTP_PORT`).
    public static func load(
        overrides: [String: String?] = [:], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HeraldConfiguration {
        var values = [AbsoluteConfigKey: ConfigValue]()
        for case let (key, value?) in overrides {
            values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(.string(value), isSecret: false)
        }
        let reader = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: values),
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific([
                    "HERALD_DATABASE_URL", "HERALD_SECRET_KEY", "HERALD_PREVIOUS_SECRET_KEYS", "HERALD_METRICS_TOKEN",
                ])),
        ])
        var configuration = HeraldConfiguration()
        configuration.databaseURL = reader.string(forKey: "herald.database.url", isSecret: true)
        configuration.databaseMaxConnections = try positive(
            reader, "herald.database.max_connections", configuration.databaseMaxConnections)
        configuration.registrationWriters = try positive(reader, "herald.registration.writers", configuration.registrationWriters)
        configuration.databaseStatementTimeoutMilliseconds = try nonNegative(
            reader, "herald.database.statement_timeout_ms", configuration.databaseStatementTimeoutMilliseconds)
        configuration.httpIdleTimeoutMilliseconds = try positive(
            reader, "herald.http.idle_timeout_ms", configuration.httpIdleTimeoutMilliseconds)
        configuration.httpRequestTimeoutMilliseconds = try positive(
            reader, "herald.http.request_timeout_ms", configuration.httpRequestTimeoutMilliseconds)
        configuration.httpMaxConnections = try positive(reader, "herald.http.max_connections", configuration.httpMaxConnections)
        configuration.importMaximumBytes = try positive(reader, "herald.import.max_bytes", configuration.importMaximumBytes)
        configuration.importMaximumSeconds = try positive(reader, "herald.import.max_seconds", configuration.importMaximumSeconds)
        configuration.apiRateLimit = try nonNegative(reader, "herald.api.rate_limit", configuration.apiRateLimit)
        configuration.apiRateBurst = try positive(reader, "herald.api.rate_burst", configuration.apiRateBurst)
        configuration.httpHost = reader.string(forKey: "herald.http.host", default: configuration.httpHost)
        configuration.httpPort = try positive(reader, "herald.http.port", configuration.httpPort)
        guard configuration.httpPort <= 65535 else { throw ConfigurationError.invalid("HERALD_HTTP_PORT", "must be 1 to 65535") }
        configuration.secretKey = reader.string(forKey: "herald.secret_key", isSecret: true)
        configuration.metricsToken = reader.string(forKey: "herald.metrics_token", isSecret: true)
        if let token = configuration.metricsToken, token.utf8.count < 16 || token.contains(where: \.isWhitespace) {
            throw ConfigurationError.invalid("HERALD_METRICS_TOKEN", "must be at least 16 characters without spaces")
        }
        configuration.previousSecretKeys = (reader.string(forKey: "herald.previous_secret_keys", isSecret: true) ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let level = reader.string(forKey: "herald.log_level") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ConfigurationError.invalid("HERALD_LOG_LEVEL", "must be trace, debug, info, notice, warning, error or critical")
            }
            configuration.logLevel = parsed
        }
        configuration.migrationsDirectory = reader.string(forKey: "herald.migrations_dir")
        configuration.autoMigrate = try flag(reader, "herald.auto_migrate", configuration.autoMigrate)
        configuration.pruneBatchSize = try positive(reader, "herald.prune_batch_size", configuration.pruneBatchSize)
        configuration.engineEnabled = try flag(reader, "herald.engine.enabled", configuration.engineEnabled)
        configuration.consoleEnabled = try flag(reader, "herald.console.enabled", configuration.consoleEnabled)
        configuration.consoleSecureCookies = try flag(reader, "herald.console.secure_cookies", configuration.consoleSecureCookies)
        configuration.consoleSessionIdleMinutes = try positive(
            reader, "herald.console.session_idle_minutes", configuration.consoleSessionIdleMinutes)
        configuration.consoleSessionMaxHours = try positive(
            reader, "herald.console.session_max_hours", configuration.consoleSessionMaxHours)
        configuration.consoleLoginAttemptsPerMinute = try positive(
            reader, "herald.console.login_attempts_per_minute", configuration.consoleLoginAttemptsPerMinute)
        if let text = reader.string(forKey: "herald.console.trusted_proxies") {
            configuration.consoleTrustedProxies = Set(
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        configuration.engineWorkers = try positive(reader, "herald.engine.workers", configuration.engineWorkers)
        configuration.liveActivityWorkers = try positive(
            reader, "herald.live_activity.workers", configuration.liveActivityWorkers)
        configuration.liveActivityBatchSize = try positive(
            reader, "herald.live_activity.batch_size", configuration.liveActivityBatchSize)
        configuration.engineBatchSize = try positive(reader, "herald.engine.batch_size", configuration.engineBatchSize)
        configuration.journeyBatchSize = try positive(reader, "herald.journey.batch_size", configuration.journeyBatchSize)
        configuration.journeyConcurrency = try positive(reader, "herald.journey.concurrency", configuration.journeyConcurrency)
        configuration.journeySegmentSeconds = try positive(
            reader, "herald.journey.segment_seconds", configuration.journeySegmentSeconds)
        configuration.engineLeaseSeconds = try positive(reader, "herald.engine.lease_seconds", configuration.engineLeaseSeconds)
        configuration.enginePollMilliseconds = try positive(
            reader, "herald.engine.poll_ms", configuration.enginePollMilliseconds)
        configuration.engineDeferredAttempts = try positive(
            reader, "herald.engine.deferred_attempts", configuration.engineDeferredAttempts)
        configuration.engineDeferredRetrySeconds = try positive(
            reader, "herald.engine.deferred_retry_seconds", configuration.engineDeferredRetrySeconds)
        configuration.apnsShards = try positive(reader, "herald.apns.shards", configuration.apnsShards)
        configuration.apnsConnectionsPerShard = try positive(
            reader, "herald.apns.connections_per_shard", configuration.apnsConnectionsPerShard)
        configuration.apnsInFlightPerShard = try positive(
            reader, "herald.apns.in_flight_per_shard", configuration.apnsInFlightPerShard)
        configuration.apnsEventLoops = try nonNegative(reader, "herald.apns.event_loops", configuration.apnsEventLoops)
        configuration.apnsRequestTimeoutMilliseconds = try positive(
            reader, "herald.apns.request_timeout_ms", configuration.apnsRequestTimeoutMilliseconds)
        configuration.apnsPingTimeoutMilliseconds = try positive(
            reader, "herald.apns.ping_timeout_ms", configuration.apnsPingTimeoutMilliseconds)
        configuration.credentialRecheckMilliseconds = try positive(
            reader, "herald.apns.credential_recheck_ms", configuration.credentialRecheckMilliseconds)
        configuration.apiKeyCacheSeconds = try nonNegative(
            reader, "herald.api.key_cache_seconds", configuration.apiKeyCacheSeconds)
        configuration.appCacheSeconds = try nonNegative(reader, "herald.app.cache_seconds", configuration.appCacheSeconds)
        configuration.retentionEnabled = try flag(reader, "herald.retention.enabled", configuration.retentionEnabled)
        configuration.retention.deliveriesDays = try days(reader, "herald.retention.deliveries_days", configuration.retention.deliveriesDays)
        configuration.retention.notificationsDays = try days(
            reader, "herald.retention.notifications_days", configuration.retention.notificationsDays)
        configuration.retention.testDeliveriesDays = try days(
            reader, "herald.retention.test_deliveries_days", configuration.retention.testDeliveriesDays)
        configuration.retention.eventsDays = try days(reader, "herald.retention.events_days", configuration.retention.eventsDays)
        configuration.retention.auditDays = try days(reader, "herald.retention.audit_days", configuration.retention.auditDays)
        configuration.retention.webhookMessagesDays = try days(
            reader, "herald.retention.webhook_messages_days", configuration.retention.webhookMessagesDays)
        configuration.retentionFirstRunMinutes = try positive(
            reader, "herald.retention.first_run_minutes", configuration.retentionFirstRunMinutes)
        configuration.retentionIntervalHours = try positive(
            reader, "herald.retention.interval_hours", configuration.retentionIntervalHours)
        configuration.retentionBatchSize = try positive(reader, "herald.retention.batch_size", configuration.retentionBatchSize)
        configuration.webhookTimeoutMilliseconds = try positive(
            reader, "herald.webhook.timeout_ms", configuration.webhookTimeoutMilliseconds)
        configuration.webhookConcurrency = try positive(reader, "herald.webhook.concurrency", configuration.webhookConcurrency)
        configuration.importConcurrency = try positive(reader, "herald.import.concurrency", configuration.importConcurrency)
        configuration.webhookAllowPrivateAddresses = try flag(
            reader, "herald.webhook.allow_private_addresses", configuration.webhookAllowPrivateAddresses)
        return configuration
    }

    /// The database URL, or a one-line reason naming the variable to set.
    func requireDatabaseURL() throws -> DatabaseURL {
        guard let databaseURL, !databaseURL.isEmpty else {
            throw ConfigurationError.missing("HERALD_DATABASE_URL", "postgres://user:password@host:5432/herald (or --database-url)")
        }
        return try DatabaseURL(databaseURL)
    }

    private static func nonNegative(_ reader: ConfigReader, _ key: String, _ fallback: Int) throws -> Int {
        guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
        let name = key.uppercased().replacingOccurrences(of: ".", with: "_")
        guard let value = Int(text), value >= 0 else { throw ConfigurationError.invalid(name, "must be 0 or a positive whole number") }
        return value
    }

    /// How the console keeps sessions and throttles sign-in, from these settings.
    var consoleSettings: ConsoleSettings {
        ConsoleSettings(
            idleTimeout: TimeInterval(consoleSessionIdleMinutes * 60), absoluteTimeout: TimeInterval(consoleSessionMaxHours * 3600),
            secureCookies: consoleSecureCookies, attemptsPerMinute: consoleLoginAttemptsPerMinute,
            trustedProxies: consoleTrustedProxies)
    }

    /// What the API allows one client (`APILimits`), from these settings.
    var apiLimits: APILimits {
        APILimits(
            importMaximumBytes: importMaximumBytes, importMaximumDuration: .seconds(importMaximumSeconds),
            requestsPerSecondPerKey: apiRateLimit, burstPerKey: apiRateBurst, concurrentImports: importConcurrency,
            webhookAllowPrivateAddresses: webhookAllowPrivateAddresses)
    }

    private static func flag(_ reader: ConfigReader, _ key: String, _ fallback: Bool) throws -> Bool {
        guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
        let name = key.uppercased().replacingOccurrences(of: ".", with: "_")
        guard let value = Bool(text.lowercased()) else { throw ConfigurationError.invalid(name, "must be true or false") }
        return value
    }

    /// A retention period: 1 to 3,650 days (0 would delete what was just written).
    private static func days(_ reader: ConfigReader, _ key: String, _ fallback: Int) throws -> Int {
        let value = try positive(reader, key, fallback)
        guard value <= RetentionPolicy.maximumDays else {
            throw ConfigurationError.invalid(
                key.uppercased().replacingOccurrences(of: ".", with: "_"), "must be 1 to \(RetentionPolicy.maximumDays) days")
        }
        return value
    }

    private static func positive(_ reader: ConfigReader, _ key: String, _ fallback: Int) throws -> Int {
        guard let text = reader.string(forKey: ConfigKey(key)) else { return fallback }
        let name = key.uppercased().replacingOccurrences(of: ".", with: "_")
        guard let value = Int(text), value > 0 else { throw ConfigurationError.invalid(name, "must be a positive whole number") }
        return value
    }
}

/// A configuration value that is missing or malformed: one line naming the variable.
enum ConfigurationError: Error, CustomStringConvertible {
    case missing(String, String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .missing(let name, let example): "\(name) is not set; set it to \(example)"
        case .invalid(let name, let reason): "\(name) \(reason)"
        }
    }
}
