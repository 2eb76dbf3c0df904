import APNSCore
import HeraldCore
import Logging
import PostgresNIO
import Synchronization

extension PostgresDeviceRepository {
    /// Writes a batch from `RegistrationBatcher`: one registration with the single prepared
    /// upsert, more in one statement. When the combined statement is refused for what a row holds
    /// (a data or constraint error, a deadlock, a trigger's exception), each is written again on
    /// its own, so one bad registration fails alone; other errors (the database gone, a timeout)
    /// are every registration's.
    static func write(
        _ batch: [RegistrationBatcher.Registration], client: PostgresClient, logger: Logger
    ) async -> [RegistrationBatcher.Outcome] {
        DatabaseMetrics.registrationStatement(rows: batch.count)
        guard batch.count > 1 else { return [await single(batch[0], client: client, logger: logger)] }
        do {
            return try await combined(batch, client: client, logger: logger)
        } catch  where rowMayBeAtFault(error) {
            var outcomes = [RegistrationBatcher.Outcome]()
            for registration in batch {
                outcomes.append(await single(registration, client: client, logger: logger))
            }
            return outcomes
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    static func single(
        _ r: RegistrationBatcher.Registration, client: PostgresClient, logger: Logger
    ) async -> RegistrationBatcher.Outcome {
        do {
            let rows = try await client.execute(RegisterDevice(appID: r.appID, token: r.token, registration: r.registration), logger: logger)
            // Read to the end: a row sequence left half-read would hold its connection.
            var registered: RegisterDevice.Row?
            for try await row in rows where registered == nil { registered = row }
            guard let registered else { throw StoreError.missingRow }
            return .success(registered)
        } catch {
            return .failure(error)
        }
    }

    static func combined(
        _ batch: [RegistrationBatcher.Registration], client: PostgresClient, logger: Logger
    ) async throws -> [RegistrationBatcher.Outcome] {
        // Rows in one order everywhere (app, then token), so two statements that share rows lock
        // them in the same order and cannot deadlock each other.
        let sorted = batch.sorted { RegistrationKey.precedes($0.key, $1.key) }
        var written = [RegistrationKey: (device: Device, created: Bool)](minimumCapacity: batch.count)
        var languages = DeviceRow.LanguageCache()
        for try await row in try await client.execute(RegisterDevices(sorted), logger: logger) {
            let cells = row.makeRandomAccess()
            let device = try DeviceRow.decode(row, languages: &languages)
            let created = try cells[19].decode(Bool.self)
            let appID = try cells[20].decode(Int64.self)
            written[RegistrationKey(appID: appID, token: device.token.bytes)] = (device, created)
        }
        return batch.map { r in
            written[r.key].map { .success($0) } ?? .failure(StoreError.missingRow)
        }
    }

    /// A server error that a row of the statement may have caused: data (22), integrity (23),
    /// transaction rollback (40: a deadlock, a serialization failure) or a raised exception (P0).
    static func rowMayBeAtFault(_ error: any Error) -> Bool {
        guard let state = PostgresErrors.serverError(error)?.serverInfo?[.sqlState] else { return false }
        return ["22", "23", "40", "P0"].contains(String(state.prefix(2)))
    }
}

/// Whether `devices` is a distributed table (a Citus cluster), read once per process. There a
/// combined registration runs as an INSERT … SELECT through the coordinator, which cost five times
/// the database's CPU per registration of the single-row statements it replaces (BENCHMARKS.md
/// "Registrations written together"), while each single-row upsert is routed to its shard; so
/// registrations are written alone there, and imports in larger batches (each batch's transaction
/// commits on every shard: BENCHMARKS.md "Import batches on a cluster"). A database converted
/// while an instance runs is seen when the instance restarts.
final class DevicesLayout: Sendable {
    private let distributed = Mutex<Bool?>(nil)

    func isDistributed(client: PostgresClient, logger: Logger) async throws -> Bool {
        if let known = distributed.withLock({ $0 }) { return known }
        var answer = false
        let citus = try await client.query(
            "SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL", logger: logger
        ).collect().first?.decode(Bool.self)
        if citus == true {
            answer =
                try await client.query(
                    "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'devices'::regclass)", logger: logger
                ).collect().first?.decode(Bool.self) ?? false
        }
        distributed.withLock { $0 = answer }
        return answer
    }
}

/// The combined registration upsert: the registrations travel as one array per column (languages
/// joined with commas, since a tag holds none and PostgreSQL arrays must be rectangular; no time
/// zone as ''), the same assignments as `RegisterDevice`, and each row back with its app. The
/// INSERT sits in a CTE, the shape a Citus cluster runs through its coordinator (as the import's).
struct RegisterDevices: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static let sql = """
        WITH input AS (
            SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::text[], $5::text[], $6::boolean[],
                                 $7::boolean[], $8::boolean[], $9::boolean[], $10::boolean[], $11::text[],
                                 $12::text[], $13::text[])
                AS t(app_id, token, environment, languages, status, alert, badge, sound, critical, sensitive,
                     time_zone, user_id, attributes)
        ), upserted AS (
            INSERT INTO devices (app_id, token, environment, languages, authorization_status, alert_enabled,
                                 badge_enabled, sound_enabled, critical_alert_enabled, time_sensitive_enabled,
                                 time_zone, user_id, attributes, part)
            SELECT app_id, token, environment,
                   CASE WHEN languages = '' THEN '{}'::text[] ELSE string_to_array(languages, ',') END,
                   status, alert, badge, sound, critical, sensitive, NULLIF(time_zone, ''), NULLIF(user_id, ''),
                   attributes::jsonb, herald_part(get_byte(sha256(token), 0))
            FROM input
            ON CONFLICT (app_id, token, part) DO UPDATE SET \(PostgresDeviceRepository.upsertAssignments)
            RETURNING \(DeviceRow.columns), (xmax = 0), app_id
        )
        SELECT * FROM upserted
        """

    let registrations: [RegistrationBatcher.Registration]

    init(_ registrations: [RegistrationBatcher.Registration]) {
        self.registrations = registrations
    }

    func makeBindings() throws -> PostgresBindings {
        let r = registrations.map(\.registration)
        var bindings = PostgresBindings(capacity: 13)
        bindings.append(registrations.map(\.appID))
        bindings.append(registrations.map { ByteBuffer(bytes: $0.token.bytes) })
        bindings.append(r.map(\.environment.rawValue))
        bindings.append(r.map { $0.languages.map(\.value).joined(separator: ",") })
        bindings.append(r.map(\.authorization.status.rawValue))
        bindings.append(r.map(\.authorization.alert))
        bindings.append(r.map(\.authorization.badge))
        bindings.append(r.map(\.authorization.sound))
        bindings.append(r.map(\.authorization.criticalAlert))
        bindings.append(r.map(\.authorization.timeSensitive))
        bindings.append(r.map { $0.timeZone ?? "" })
        bindings.append(r.map { $0.userID ?? "" })
        bindings.append(r.map(\.attributesJSON))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row }
}
