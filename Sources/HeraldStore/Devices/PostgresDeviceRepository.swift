import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// The token registry in PostgreSQL. Every value is a bound parameter; an upsert is one
/// statement, so concurrent registrations of one token cannot race.
public struct PostgresDeviceRepository: DeviceRepository {
    let client: PostgresClient
    let logger: Logger
    /// Registrations that arrive while others are being written go in one statement
    /// (`RegistrationQueue`); shared by every copy of this repository.
    let registrations: RegistrationBatcher
    let layout = DevicesLayout()

    /// - Parameters:
    ///   - writers: how many registration statements may run at once (each holds a connection).
    ///   - batchSize: the most registrations one statement writes.
    public init(client: PostgresClient, logger: Logger, writers: Int = 2, batchSize: Int = 64) {
        self.client = client
        let logger = logger.forDatabase
        self.logger = logger
        registrations = RegistrationBatcher(writers: writers, batchSize: batchSize) { batch in
            await Self.write(batch, client: client, logger: logger)
        }
    }

    public func register(
        appID: Int64, token: DeviceToken, registration r: DeviceRegistration
    ) async throws
        -> (device: Device, created: Bool)
    {
        try await DatabaseMetrics.measure("devices.register") {
            // Named prepared statements, alone or combined with the registrations that arrived
            // meanwhile (BENCHMARKS.md "Registrations written together"); always alone on a
            // Citus cluster, where the combined statement goes through the coordinator.
            let registration = RegistrationBatcher.Registration(appID: appID, token: token, registration: r)
            if try await layout.isDistributed(client: client, logger: logger) {
                return try await Self.single(registration, client: client, logger: logger).get()
            }
            return try await registrations.register(registration).get()
        }
    }

    public func find(appID: Int64, token: DeviceToken) async throws -> Device? {
        try await DatabaseMetrics.measure("devices.find") {
            let part = try await PartLabels.condition("devices", token: token, client: client, logger: logger)
            let rows = try await client.query(
                """
                SELECT \(unescaped: DeviceRow.columns) FROM devices
                WHERE app_id = \(appID) AND \(unescaped: part) AND token = \(ByteBuffer(bytes: token.bytes))
                """, logger: logger)
            return try await rows.collect().first.map(DeviceRow.decode)
        }
    }

    public func find(appID: Int64, tokens: [DeviceToken]) async throws -> [DeviceToken: Device] {
        try await DatabaseMetrics.measure("devices.findMany") {
            let parts = try await PartLabels.condition("devices", tokens: tokens, client: client, logger: logger)
            let rows = try await client.query(
                """
                SELECT \(unescaped: DeviceRow.columns) FROM devices
                WHERE app_id = \(appID) AND \(unescaped: parts) AND token = ANY(\(tokens.map { ByteBuffer(bytes: $0.bytes) })::bytea[])
                """, logger: logger)
            var found = [DeviceToken: Device]()
            for try await row in rows {
                let device = try DeviceRow.decode(row)
                found[device.token] = device
            }
            return found
        }
    }

    public func delete(appID: Int64, token: DeviceToken) async throws -> Bool {
        try await DatabaseMetrics.measure("devices.delete") {
            let part = try await PartLabels.condition("devices", token: token, client: client, logger: logger)
            let rows = try await client.query(
                """
                DELETE FROM devices WHERE app_id = \(appID) AND \(unescaped: part) AND token = \(ByteBuffer(bytes: token.bytes))
                RETURNING id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    public func list(appID: Int64, query q: DeviceListQuery) async throws -> DevicePage {
        try await DatabaseMetrics.measure("devices.list") {
            let limit = min(max(q.limit, 1), DeviceListQuery.maximumLimit)
            // Keyset paging: id > cursor, never OFFSET. NULL parameters switch a filter off.
            let rows = try await client.query(
                """
                SELECT \(unescaped: DeviceRow.columns) FROM devices
                WHERE app_id = \(appID) AND id > \(q.cursor ?? 0)
                  AND (\(q.userID)::text IS NULL OR user_id = \(q.userID))
                  AND (\(q.language?.value)::text IS NULL OR languages @> ARRAY[\(q.language?.value)::text])
                  AND (\(q.valid)::boolean IS NULL OR (invalidated_at IS NULL) = \(q.valid))
                ORDER BY id
                LIMIT \(limit + 1)
                """, logger: logger)
            var devices = try await rows.collect().map(DeviceRow.decode)
            var next: Int64?
            if devices.count > limit {
                devices.removeLast()
                next = devices.last?.id
            }
            return DevicePage(devices: devices, nextCursor: next)
        }
    }

    public func valid(appID: Int64, userIDs: [String], limitPerUser: Int) async throws -> [String: [Device]] {
        guard !userIDs.isEmpty else { return [:] }
        return try await DatabaseMetrics.measure("devices.validOfUsers") {
            // The users' valid devices (the index on app and user), numbered per user in ID order
            // and cut at the limit. Not a LATERAL subquery with a LIMIT per user: a Citus cluster
            // cannot push that down; this it runs on the shards and numbers on the coordinator.
            let rows = try await client.query(
                """
                SELECT \(unescaped: DeviceRow.columns) FROM (
                    SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY id) AS place FROM devices
                    WHERE app_id = \(appID) AND user_id = ANY(\(Array(Set(userIDs)))::text[]) AND invalidated_at IS NULL
                ) AS d
                WHERE place <= \(limitPerUser)
                """, logger: logger)
            var found = [String: [Device]]()
            for try await row in rows {
                let device = try DeviceRow.decode(row)
                if let userID = device.userID { found[userID, default: []].append(device) }
            }
            return found
        }
    }

    public func find(appID: Int64, tokenSuffix suffix: [UInt8], limit: Int) async throws -> [Device] {
        try await DatabaseMetrics.measure("devices.findSuffix") {
            guard suffix.count >= 4 else { return [] }
            // The first condition is devices_token_tail_idx's expression; the second checks the rest.
            let rows = try await client.query(
                """
                SELECT \(unescaped: DeviceRow.columns) FROM devices
                WHERE app_id = \(appID)
                  AND substring(token FROM length(token) - 3 FOR 4) = \(ByteBuffer(bytes: suffix.suffix(4)))
                  AND length(token) >= \(suffix.count)::int
                  AND substring(token FROM length(token) - \(suffix.count - 1)::int) = \(ByteBuffer(bytes: suffix))
                ORDER BY id DESC
                LIMIT \(limit)
                """, logger: logger)
            return try await rows.collect().map(DeviceRow.decode)
        }
    }

    public func importBatchSize() async -> Int {
        let distributed = (try? await layout.isDistributed(client: client, logger: logger)) ?? false
        return distributed ? DeviceImportBatching.distributedLines : DeviceImportBatching.lines
    }

    public func importBatch(appID: Int64, items: [DeviceImportItem]) async throws -> DeviceImportCounts {
        try await DatabaseMetrics.measure("devices.importBatch") {
            guard !items.isEmpty else { return DeviceImportCounts() }
            // One statement per batch: columns travel as arrays and unnest into rows. Languages are
            // joined with commas (a tag never contains one) because PostgreSQL arrays must be rectangular.
            let tokens = items.map { ByteBuffer(bytes: $0.token.bytes) }
            let r = items.map(\.registration)
            let rows = try await client.query(
                """
                WITH input AS (
                    SELECT * FROM unnest(\(tokens)::bytea[], \(r.map(\.environment.rawValue))::text[],
                                         \(r.map { $0.languages.map(\.value).joined(separator: ",") })::text[],
                                         \(r.map(\.authorization.status.rawValue))::text[],
                                         \(r.map(\.authorization.alert))::boolean[], \(r.map(\.authorization.badge))::boolean[],
                                         \(r.map(\.authorization.sound))::boolean[],
                                         \(r.map(\.authorization.criticalAlert))::boolean[],
                                         \(r.map(\.authorization.timeSensitive))::boolean[],
                                         \(r.map { $0.timeZone ?? "" })::text[], \(r.map { $0.userID ?? "" })::text[],
                                         \(r.map(\.attributesJSON))::text[])
                        AS t(token, environment, languages, status, alert, badge, sound, critical, sensitive,
                             time_zone, user_id, attributes)
                ), upserted AS (
                    INSERT INTO devices (app_id, token, environment, languages, authorization_status, alert_enabled,
                                         badge_enabled, sound_enabled, critical_alert_enabled, time_sensitive_enabled,
                                         time_zone, user_id, attributes, part)
                    SELECT \(appID), token, environment,
                           CASE WHEN languages = '' THEN '{}'::text[] ELSE string_to_array(languages, ',') END,
                           status, alert, badge, sound, critical, sensitive,
                           NULLIF(time_zone, ''), NULLIF(user_id, ''), attributes::jsonb,
                           herald_part(get_byte(sha256(token), 0))
                    FROM input
                    ON CONFLICT (app_id, token, part) DO UPDATE SET \(unescaped: Self.upsertAssignments)
                    RETURNING (xmax = 0) AS created
                )
                SELECT count(*) FILTER (WHERE created), count(*) FILTER (WHERE NOT created) FROM upserted
                """, logger: logger)
            guard let row = try await rows.collect().first else { throw StoreError.missingRow }
            let (created, updated) = try row.decode((Int64, Int64).self)
            return DeviceImportCounts(created: Int(created), updated: Int(updated))
        }
    }

    /// A registration replaces what the device said before, moves `registered_at` to now and
    /// clears an earlier invalidation (docs/rules.md rule 1: a later registration revives a token).
    /// "Now" is the proposed row's own (its columns' default, the transaction's time): a
    /// distributed table takes only immutable functions here (docs/scaling.md).
    static let upsertAssignments = """
        environment = EXCLUDED.environment, languages = EXCLUDED.languages,
        authorization_status = EXCLUDED.authorization_status, alert_enabled = EXCLUDED.alert_enabled,
        badge_enabled = EXCLUDED.badge_enabled, sound_enabled = EXCLUDED.sound_enabled,
        critical_alert_enabled = EXCLUDED.critical_alert_enabled,
        time_sensitive_enabled = EXCLUDED.time_sensitive_enabled, time_zone = EXCLUDED.time_zone,
        user_id = EXCLUDED.user_id, attributes = EXCLUDED.attributes,
        registered_at = EXCLUDED.registered_at, updated_at = EXCLUDED.updated_at,
        invalidated_at = NULL, invalidation_reason = NULL
        """
}

/// The registration upsert, as a prepared statement. Its row is the device as stored and
/// whether this call created it (`xmax = 0` on a fresh insert).
struct RegisterDevice: PostgresPreparedStatement {
    typealias Row = (device: Device, created: Bool)

    static let sql = """
        INSERT INTO devices (app_id, token, environment, languages, authorization_status, alert_enabled,
                             badge_enabled, sound_enabled, critical_alert_enabled, time_sensitive_enabled,
                             time_zone, user_id, attributes, part)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, herald_part(get_byte(sha256($2), 0)))
        ON CONFLICT (app_id, token, part) DO UPDATE SET \(PostgresDeviceRepository.upsertAssignments)
        RETURNING \(DeviceRow.columns), (xmax = 0)
        """

    let appID: Int64
    let token: DeviceToken
    let registration: DeviceRegistration

    func makeBindings() throws -> PostgresBindings {
        let r = registration
        let a = r.authorization
        var bindings = PostgresBindings(capacity: 13)
        bindings.append(appID)
        bindings.append(ByteBuffer(bytes: token.bytes))
        bindings.append(r.environment.rawValue)
        bindings.append(r.languages.map(\.value))
        bindings.append(a.status.rawValue)
        bindings.append(a.alert)
        bindings.append(a.badge)
        bindings.append(a.sound)
        bindings.append(a.criticalAlert)
        bindings.append(a.timeSensitive)
        bindings.append(r.timeZone)
        bindings.append(r.userID)
        bindings.append(r.attributesJSON)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        (try DeviceRow.decode(row), try row.makeRandomAccess()[19].decode(Bool.self))
    }
}
