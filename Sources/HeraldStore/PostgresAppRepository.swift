import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Apps in PostgreSQL; signing keys are sealed by the vault before they are written.
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
            guard let vault else { throw ConfigurationMissing(name: "HERALD_SECRET_KEY", purpose: "to store signing keys") }
            let sealed = ByteBuffer(bytes: try vault.seal(app.signingKeyPEM))
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let rows = try await connection.query(
                        """
                        INSERT INTO apps (bundle_id, team_id, key_id, signing_key_sealed, default_environment,
                                          apns_endpoint, apns_ca_pem)
                        VALUES (\(app.bundleID), \(app.teamID), \(app.keyID), \(sealed),
                                \(app.defaultEnvironment.rawValue), \(app.apnsEndpoint), \(app.apnsCAPEM))
                        RETURNING \(unescaped: Self.columns)
                        """, logger: logger)
                    guard let row = try await rows.collect().first else { throw StoreError.missingRow }
                    let created = try Self.decode(row)
                    try await AuditLog.record(
                        on: connection, actor: actor, action: "app.add", appID: created.id,
                        details: ["bundleID": .string(created.bundleID)], logger: logger)
                    return created
                }
            } catch where PostgresErrors.isUniqueViolation(error) {
                throw ValidationError(field: "bundleID", reason: "an app with this bundle ID exists already")
            }
        }
    }

    public func list() async throws -> [App] {
        try await DatabaseMetrics.measure("apps.list") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM apps ORDER BY bundle_id", logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func find(bundleID: String) async throws -> App? {
        try await DatabaseMetrics.measure("apps.find") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM apps WHERE bundle_id = \(bundleID)", logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func find(id: Int64) async throws -> App? {
        try await DatabaseMetrics.measure("apps.find") {
            let rows = try await client.query("SELECT \(unescaped: Self.columns) FROM apps WHERE id = \(id)", logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func signingKey(appID: Int64) async throws -> String {
        guard let vault else { throw ConfigurationMissing(name: "HERALD_SECRET_KEY", purpose: "to open signing keys") }
        let rows = try await client.query("SELECT signing_key_sealed FROM apps WHERE id = \(appID)", logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        return try vault.open(Array(buffer: try row.decode(ByteBuffer.self)))
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
                        quiet_hours_end = \(end), frequency_caps = \(caps)::jsonb, updated_at = now()
                    WHERE id = \(appID)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
                guard let row = try await rows.collect().first else { return nil }
                let app = try Self.decode(row)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "app.settings", appID: appID,
                    details: [
                        "defaultTimeZone": settings.defaultTimeZone.map { .string($0) } ?? .null,
                        "quietHours": settings.quietHours.map { .string($0.description) } ?? .null,
                        "frequencyCaps": .array(settings.frequencyCaps.map { .string($0.description) }),
                    ], logger: logger)
                return app
            }
        }
    }

    static let columns =
        "id, bundle_id, team_id, key_id, default_environment, apns_endpoint, apns_ca_pem, created_at, default_time_zone, "
        + "quiet_hours_start, quiet_hours_end, frequency_caps::text"

    static func decode(_ row: PostgresRow) throws -> App {
        let (id, bundleID, teamID, keyID, environment, endpoint, ca, createdAt, zone, quietStart, quietEnd, caps) =
            try row.decode((Int64, String, String, String, String, String?, String?, Date, String?, Int16?, Int16?, String).self)
        var app = App(
            id: id, bundleID: bundleID, teamID: teamID, keyID: keyID,
            defaultEnvironment: try StoreError.decode(environment, as: APNSEnvironment.self, column: "apps.default_environment"),
            apnsEndpoint: endpoint, apnsCAPEM: ca, createdAt: createdAt, defaultTimeZone: zone,
            quietHours: quietStart.flatMap { start in quietEnd.map { QuietHours(start: Int(start), end: Int($0)) } })
        app.frequencyCaps = try CampaignJSON.decode([FrequencyCap].self, from: caps)
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
}

/// Store faults that are not the caller's doing.
enum StoreError: Error, CustomStringConvertible {
    case missingRow
    /// A column held a value no Herald version writes (an edit behind Herald's back).
    case unknownValue(column: String, value: String)

    var description: String {
        switch self {
        case .missingRow: "the database returned no row where one was expected"
        case .unknownValue(let column, let value): "\(column) holds \"\(value)\", which this Herald does not know"
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
