import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Recurring campaigns in PostgreSQL (docs/campaigns.md "Recurring campaigns"). The engine's
/// side, starting due runs, is ``PostgresCampaignWork/runDueSeries(limit:actor:now:)``.
public struct PostgresCampaignSeries: CampaignSeriesRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    static let columns = """
        s.id, s.public_id, s.app_id, s.name, s.blueprint::text, s.recurrence::text, s.state, s.next_run_date,
        s.next_run_at, s.runs_started, s.created_by, s.created_at, s.updated_at
        """

    static func decode(_ row: PostgresRow) throws -> CampaignSeries {
        let (
            id, publicID, appID, name, blueprint, recurrence, state, nextDate, nextAt, started, createdBy, createdAt,
            updatedAt
        ) = try row.decode(
            (Int64, UUID, Int64, String, String, String, String, String?, Date?, Int32, String, Date, Date).self)
        var next: Recurrence.Occurrence?
        if let nextDate, let nextAt { next = Recurrence.Occurrence(date: nextDate, due: nextAt) }
        return CampaignSeries(
            id: id, publicID: publicID, appID: appID, name: name,
            blueprint: try CampaignJSON.decode(CampaignDraft.self, from: blueprint),
            recurrence: try CampaignJSON.decode(Recurrence.self, from: recurrence),
            state: try StoreError.decode(state, as: CampaignSeries.State.self, column: "campaign_series.state"),
            next: next, runsStarted: Int(started), createdBy: createdBy, createdAt: createdAt, updatedAt: updatedAt)
    }

    public func create(
        name: String, blueprint: CampaignDraft, recurrence: Recurrence, actor: String, now: Date
    )
        async throws -> CampaignSeries
    {
        try await DatabaseMetrics.measure("series.create") {
            if let problem = CampaignSeries.nameProblem(name) { throw ValidationError(field: "name", reason: problem) }
            var blueprint = blueprint
            blueprint.name = name
            blueprint.sendAt = nil
            blueprint.localDelivery = nil
            if let error = blueprint.validate().first { throw Self.campaignError(error) }
            if let error = recurrence.validate(now: now).first {
                throw ValidationError(field: "schedule.\(error.field)", reason: error.reason)
            }
            guard let first = recurrence.occurrence(dueAfter: now) else {
                throw ValidationError(field: "schedule.endsOn", reason: "every run of the schedule is already past")
            }
            let blueprintJSON = try CampaignJSON.encode(blueprint)
            let recurrenceJSON = try CampaignJSON.encode(recurrence)
            return try await client.withDomainTransaction(logger: logger) { connection -> CampaignSeries in
                try await dryRun(
                    CampaignSeries(
                        id: 0, publicID: UUID(), appID: blueprint.appID, name: name, blueprint: blueprint,
                        recurrence: recurrence, state: .active, next: first, runsStarted: 0, createdBy: actor,
                        createdAt: now, updatedAt: now
                    ).draft(for: first),
                    actor: actor, on: connection)
                let rows = try await connection.query(
                    """
                    INSERT INTO campaign_series (app_id, name, blueprint, recurrence, next_run_date, next_run_at, created_by)
                    VALUES (\(blueprint.appID), \(name), \(blueprintJSON)::jsonb, \(recurrenceJSON)::jsonb, \(first.date),
                            \(first.due), \(actor))
                    RETURNING id
                    """, logger: logger)
                guard let id = try await rows.collect().first?.decode(Int64.self) else { throw StoreError.missingRow }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "series.create", appID: blueprint.appID,
                    details: ["seriesID": .int(Int(id)), "name": .string(name)], logger: logger)
                try await connection.query("SELECT pg_notify(\(WorkSignal.channel), '')", logger: logger)
                return try await Self.fetch(id: id, on: connection, logger: logger)
            }
        }
    }

    /// Creates and schedules the first run's campaign inside a savepoint, then undoes it: every
    /// check a run will meet (templates the app owns and their versions, the saved segment, a
    /// Live Activity start's channel) refuses the series now rather than failing its runs later.
    private func dryRun(_ draft: CampaignDraft, actor: String, on connection: PostgresConnection) async throws {
        try await connection.query("SAVEPOINT series_dry_run", logger: logger)
        do {
            let id = try await CampaignInsert.insert(draft, series: nil, on: connection, logger: logger)
            _ = try await CampaignLifecycle.transition(id: id, event: .schedule, actor: actor, on: connection, logger: logger)
        } catch let error as ValidationError {
            throw Self.campaignError(error)
        }
        try await connection.query("ROLLBACK TO SAVEPOINT series_dry_run", logger: logger)
    }

    private static func campaignError(_ error: ValidationError) -> ValidationError {
        ValidationError(field: "campaign.\(error.field)", reason: error.reason)
    }

    public func get(publicID: UUID) async throws -> CampaignSeries? {
        try await DatabaseMetrics.measure("series.get") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM campaign_series s WHERE s.public_id = \(publicID)", logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func list(appIDs: [Int64]?, limit: Int) async throws -> [CampaignSeries] {
        try await DatabaseMetrics.measure("series.list") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM campaign_series s
                WHERE \(appIDs == nil) OR s.app_id = ANY(\(appIDs ?? [])::bigint[])
                ORDER BY s.id DESC LIMIT \(Int64(limit))
                """, logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func runs(seriesID: Int64, limit: Int) async throws -> [SeriesRun] {
        try await DatabaseMetrics.measure("series.runs") {
            let rows = try await client.query(
                """
                SELECT r.series_id, r.run, r.run_date, r.due_at, r.outcome, c.public_id, r.reason, r.recorded_at
                FROM campaign_series_runs r LEFT JOIN campaigns c ON c.id = r.campaign_id
                WHERE r.series_id = \(seriesID) ORDER BY r.run DESC LIMIT \(Int64(limit))
                """, logger: logger)
            return try await rows.collect().map { row in
                let (seriesID, run, date, due, outcome, campaign, reason, recordedAt) = try row.decode(
                    (Int64, Int32, String, Date, String, UUID?, String?, Date).self)
                return SeriesRun(
                    seriesID: seriesID, run: Int(run), date: date, due: due,
                    outcome: try StoreError.decode(outcome, as: SeriesRun.Outcome.self, column: "campaign_series_runs.outcome"),
                    campaignID: campaign, reason: reason, recordedAt: recordedAt)
            }
        }
    }

    public func transition(
        publicID: UUID, event: CampaignSeries.Event, actor: String, now: Date
    ) async throws
        -> CampaignSeries?
    {
        try await DatabaseMetrics.measure("series.transition") {
            try await client.withDomainTransaction(logger: logger) { connection -> CampaignSeries? in
                let rows = try await connection.query(
                    "SELECT \(unescaped: Self.columns) FROM campaign_series s WHERE s.public_id = \(publicID) FOR UPDATE",
                    logger: logger)
                guard let series = try await rows.collect().first.map(Self.decode) else { return nil }
                guard let state = CampaignSeries.state(after: event, from: series.state) else {
                    throw SeriesError.invalidTransition(from: series.state, event: event)
                }
                var next = series.next
                if event == .resume {
                    // Runs whose hour passed while paused are not runs: the series goes on from the next one.
                    while let candidate = next, series.recurrence.lastChance(on: candidate.date).map({ $0 < now }) ?? true {
                        next = series.recurrence.occurrence(after: candidate.date)
                    }
                }
                if event == .stop { next = nil }
                let finished = state == .active && next == nil
                try await connection.query(
                    """
                    UPDATE campaign_series SET state = \(finished ? CampaignSeries.State.finished.rawValue : state.rawValue),
                        next_run_date = \(next?.date), next_run_at = \(next?.due), updated_at = now()
                    WHERE id = \(series.id)
                    """, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "series.\(event.rawValue)", appID: series.appID,
                    details: ["seriesID": .int(Int(series.id)), "from": .string(series.state.rawValue), "to": .string(state.rawValue)],
                    logger: logger)
                if state == .active { try await connection.query("SELECT pg_notify(\(WorkSignal.channel), '')", logger: logger) }
                return try await Self.fetch(id: series.id, on: connection, logger: logger)
            }
        }
    }

    static func fetch(id: Int64, on connection: PostgresConnection, logger: Logger) async throws -> CampaignSeries {
        let rows = try await connection.query(
            "SELECT \(unescaped: columns) FROM campaign_series s WHERE s.id = \(id)", logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        return try decode(row)
    }
}
