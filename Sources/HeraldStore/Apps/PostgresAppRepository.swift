import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Apps in PostgreSQL; their credentials are sealed by the vault before they are written
/// (`PostgresAppRepository+Credentials.swift`).
public struct PostgresAppRepository: AppRepository {
    let client: PostgresClient
    let vault: SigningKeyVault?
    let logger: Logger

    /// Without a vault, apps can be read but not added.
    public init(client: PostgresClient, vault: SigningKeyVault?, logger: Logger) {
        self.client = client
        self.vault = vault
        self.logger = logger.forDatabase
    }

    public func add(_ app: NewApp, actor: String) async throws -> App {
        try await DatabaseMetrics.measure("apps.add") {
            let vault = try requireVault()
            do {
                return try await client.withDomainTransaction(logger: logger) { connection in
                    // Never seal with a key that does not open what is stored already.
                    try await SealedSecrets.requireOpenable(with: vault, on: connection, logger: logger)
                    let rows = try await connection.query(
                        """
                        INSERT INTO apps (bundle_id, team_id, default_environment, apns_endpoint, apns_ca_pem, apns_id_key)
                        VALUES (\(app.bundleID), \(app.teamID), \(app.defaultEnvironment.rawValue), \(app.apnsEndpoint),
                                \(app.apnsCAPEM), \(ByteBuffer(bytes: APNSIDCipher.newKey())))
                        RETURNING id
                        """, logger: logger)
                    guard let appID = try await rows.collect().first?.decode(Int64.self) else { throw StoreError.missingRow }
                    let credential = try await Self.insertCredential(
                        .signingKey(app.signingKey), appID: appID, state: .active, vault: vault, on: connection, logger: logger)
                    // An instance may remember that no app had this bundle ID.
                    try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                    try await AuditLog.record(
                        on: connection, actor: actor, action: "app.add", appID: appID,
                        details: [
                            "bundleID": .string(app.bundleID), "credentialID": .int(Int(credential.id)),
                            "keyID": .string(app.signingKey.keyID),
                        ], logger: logger)
                    return try await Self.fetch(appID: appID, on: connection, logger: logger)
                }
            } catch  where PostgresErrors.isUniqueViolation(error) {
                throw ValidationError(field: "bundleID", reason: "an app with this bundle ID exists already")
            }
        }
    }

    public func list() async throws -> [App] {
        try await DatabaseMetrics.measure("apps.list") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM \(unescaped: Self.source) ORDER BY a.bundle_id", logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func find(bundleID: String) async throws -> App? {
        // No stored app has an invalid bundle ID (the table checks it), and text PostgreSQL
        // refuses (a NUL) must be "no such app", not an error.
        guard BundleID.isValid(bundleID) else { return nil }
        return try await DatabaseMetrics.measure("apps.find") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM \(unescaped: Self.source) WHERE a.bundle_id = \(bundleID)",
                logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func find(id: Int64) async throws -> App? {
        try await DatabaseMetrics.measure("apps.find") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM \(unescaped: Self.source) WHERE a.id = \(id)", logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    static func fetch(appID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> App {
        let rows = try await connection.query(
            "SELECT \(unescaped: Self.columns) FROM \(unescaped: Self.source) WHERE a.id = \(appID)", logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        return try Self.decode(row)
    }

    func requireVault() throws -> SigningKeyVault {
        guard let vault else { throw ConfigurationMissing(name: "HERALD_SECRET_KEY", purpose: "to store and open credentials") }
        return vault
    }

    public func update(appID: Int64, changes: AppChanges, actor: String) async throws -> App? {
        try await DatabaseMetrics.measure("apps.update") {
            let environment = changes.defaultEnvironment?.rawValue
            let setEndpoint = changes.apnsEndpoint != nil
            let endpoint = changes.apnsEndpoint ?? nil
            let setCA = changes.apnsCAPEM != nil
            let ca = changes.apnsCAPEM ?? nil
            let setManagement = changes.apnsManagementEndpoint != nil
            let management = changes.apnsManagementEndpoint ?? nil
            let disabled = changes.disabled
            return try await client.withDomainTransaction(logger: logger) { connection -> App? in
                let rows = try await connection.query(
                    """
                    UPDATE apps SET
                        default_environment = coalesce(\(environment), default_environment),
                        apns_endpoint = CASE WHEN \(setEndpoint) THEN \(endpoint) ELSE apns_endpoint END,
                        apns_ca_pem = CASE WHEN \(setCA) THEN \(ca) ELSE apns_ca_pem END,
                        apns_management_endpoint = CASE WHEN \(setManagement) THEN \(management)
                                                        ELSE apns_management_endpoint END,
                        disabled_at = CASE WHEN \(disabled) THEN coalesce(disabled_at, \(Date()))
                                           WHEN NOT \(disabled) THEN NULL ELSE disabled_at END,
                        updated_at = now()
                    WHERE id = \(appID)
                    RETURNING id
                    """, logger: logger)
                guard try await rows.collect().first != nil else { return nil }
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                var details = [String: PayloadValue]()
                if let environment { details["defaultEnvironment"] = .string(environment) }
                if setEndpoint { details["apnsEndpoint"] = endpoint.map { .string($0) } ?? .null }
                if setCA { details["apnsCA"] = ca == nil ? .null : .string("replaced") }
                if setManagement { details["apnsManagementEndpoint"] = management.map { .string($0) } ?? .null }
                if let disabled { details["disabled"] = .bool(disabled) }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "app.update", appID: appID, details: details, logger: logger)
                return try await Self.fetch(appID: appID, on: connection, logger: logger)
            }
        }
    }

    public func updateSettings(appID: Int64, settings: AppSettings, actor: String) async throws -> App? {
        try await DatabaseMetrics.measure("apps.updateSettings") {
            if let error = settings.validate().first { throw error }
            let start = settings.quietHours.map { Int16($0.start) }
            let end = settings.quietHours.map { Int16($0.end) }
            let caps = try CampaignJSON.encode(settings.frequencyCaps)
            return try await client.withDomainTransaction(logger: logger) { connection -> App? in
                let rows = try await connection.query(
                    """
                    UPDATE apps SET default_time_zone = \(settings.defaultTimeZone), quiet_hours_start = \(start),
                        quiet_hours_end = \(end), frequency_caps = \(caps)::jsonb,
                        live_activity_high_priority_per_hour = \(Int32(settings.liveActivityHighPriorityPerHour)), updated_at = now()
                    WHERE id = \(appID)
                    RETURNING id
                    """, logger: logger)
                guard try await rows.collect().first != nil else { return nil }
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                let app = try await Self.fetch(appID: appID, on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "app.settings", appID: appID,
                    details: [
                        "defaultTimeZone": settings.defaultTimeZone.map { .string($0) } ?? .null,
                        "quietHours": settings.quietHours.map { .string($0.description) } ?? .null,
                        "frequencyCaps": .array(settings.frequencyCaps.map { .string($0.description) }),
                        "liveActivityHighPriorityPerHour": .int(settings.liveActivityHighPriorityPerHour),
                    ], logger: logger)
                return app
            }
        }
    }

    /// An app with its active credential's key ID.
    static let source = "apps a LEFT JOIN app_credentials c ON c.app_id = a.id AND c.state = 'active'"
    static let columns =
        "a.id, a.bundle_id, a.team_id, c.key_id, a.default_environment, a.apns_endpoint, a.apns_ca_pem, a.created_at, "
        + "a.default_time_zone, a.quiet_hours_start, a.quiet_hours_end, a.frequency_caps::text, a.disabled_at, "
        + "a.live_activity_high_priority_per_hour, a.apns_management_endpoint"

    static func decode(_ row: PostgresRow) throws -> App {
        let (
            id, bundleID, teamID, keyID, environment, endpoint, ca, createdAt, zone, quietStart, quietEnd, caps, disabledAt,
            allowance, management
        ) = try row.decode(
            (Int64, String, String, String?, String, String?, String?, Date, String?, Int16?, Int16?, String, Date?, Int32, String?)
                .self)
        var app = App(
            id: id, bundleID: bundleID, teamID: teamID, keyID: keyID,
            defaultEnvironment: try StoreError.decode(environment, as: APNSEnvironment.self, column: "apps.default_environment"),
            apnsEndpoint: endpoint, apnsCAPEM: ca, createdAt: createdAt, defaultTimeZone: zone,
            quietHours: quietStart.flatMap { start in quietEnd.map { QuietHours(start: Int(start), end: Int($0)) } })
        app.frequencyCaps = try CampaignJSON.decode([FrequencyCap].self, from: caps)
        app.disabledAt = disabledAt
        app.liveActivityHighPriorityPerHour = Int(allowance)
        app.apnsManagementEndpoint = management
        return app
    }
}

/// A setting an operation needs that was not given; names the variable to set.
public struct ConfigurationMissing: Error, CustomStringConvertible {
    public var name: String
    public var purpose: String

    public init(name: String, purpose: String) {
        self.name = name
        self.purpose = purpose
    }

    public var description: String { "\(name) is not set; it is needed \(purpose)" }
}

/// Reading PostgreSQL errors, which arrive bare or wrapped by `withTransaction`.
public enum PostgresErrors {
    public static func serverError(_ error: any Error) -> PSQLError? {
        if let error = error as? PSQLError { return error }
        if let error = error as? PostgresTransactionError {
            return [error.closureError, error.beginError, error.commitError].lazy.compactMap { $0 as? PSQLError }.first
        }
        return nil
    }

    static func isUniqueViolation(_ error: any Error) -> Bool {
        serverError(error)?.serverInfo?[.sqlState] == PostgresError.Code.uniqueViolation.raw
    }

    /// Citus's messages for a worker it cannot reach (its SQLSTATE is 08006 or XX000).
    public static func citusWorkerUnreachable(_ message: String) -> Bool {
        message.hasPrefix("failure on connection marked as essential")
            || message.hasPrefix("connection to the remote node")
    }

    /// A statement that failed because a Citus worker it needed did not answer: the coordinator
    /// answered, so the other workers' shards can still be read.
    static func isWorkerUnreachable(_ error: any Error) -> Bool {
        guard let info = serverError(error)?.serverInfo, let message = info[.message] else { return false }
        return citusWorkerUnreachable(message)
    }
}

/// Store faults that are not the caller's doing.
enum StoreError: Error, CustomStringConvertible {
    case missingRow
    /// A column held a value no Herald version writes (an edit behind Herald's back).
    case unknownValue(column: String, value: String)
    /// A delivery record without its device's bucket: the ledger row's part is unknown (a bug in
    /// the caller; nothing of the batch is written).
    case missingBucket(deviceID: Int64)
    /// The database's schema is not what this Herald's migrations make (a function edited).
    case unexpectedSchema(String)

    var description: String {
        switch self {
        case .missingRow: "the database returned no row where one was expected"
        case .unknownValue(let column, let value): "\(column) holds \"\(value)\", which this Herald does not know"
        case .missingBucket(let deviceID): "the delivery record of device \(deviceID) has no bucket, so its part is unknown"
        case .unexpectedSchema(let detail): "the database's schema is not Herald's: \(detail)"
        }
    }

    /// The enum value a text column holds; an unknown one fails loudly instead of being read as
    /// some default (a row edited behind Herald's back, or written by a newer version).
    static func decode<Value: RawRepresentable>(_ text: String, as type: Value.Type, column: String) throws -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: text) else { throw StoreError.unknownValue(column: column, value: text) }
        return value
    }
}
