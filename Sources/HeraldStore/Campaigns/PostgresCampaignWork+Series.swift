import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

extension PostgresCampaignWork {
    public func runDueSeries(limit: Int, actor: String, now: Date) async throws -> [SeriesRun] {
        try await DatabaseMetrics.measure("work.runDueSeries") {
            // Each poll of every instance asks: one indexed read, no transaction, when nothing is due.
            let due = try await client.query(
                "SELECT 1 FROM campaign_series WHERE state = 'active' AND next_run_at <= \(now) LIMIT 1", logger: logger)
            guard try await !due.collect().isEmpty else { return [] }
            var recorded = [SeriesRun]()
            // One transaction per run: a series is locked while its run is decided and recorded.
            while recorded.count < limit {
                let run = try await client.withDomainTransaction(logger: logger) { connection -> SeriesRun? in
                    // It reads the last run's chunks, then writes `campaigns` and the series.
                    try await ClusterSafety.oneConnectionPerNode(on: connection, logger: logger)
                    let due = try await connection.query(
                        """
                        SELECT \(unescaped: PostgresCampaignSeries.columns), s.next_run FROM campaign_series s
                        WHERE s.state = 'active' AND s.next_run_at <= \(now)
                        ORDER BY s.next_run_at, s.id
                        LIMIT 1
                        FOR UPDATE SKIP LOCKED
                        """, logger: logger)
                    guard let row = try await due.collect().first else { return nil }
                    let series = try PostgresCampaignSeries.decode(row)
                    let number = Int(try row.makeRandomAccess()[13].decode(Int32.self))
                    return try await runOnce(series, number: number, actor: actor, now: now, on: connection)
                }
                guard let run else { break }
                recorded.append(run)
            }
            return recorded
        }
    }

    /// Decides, performs and records run `number` of `series` (its next one), and moves the
    /// series on to the run after it.
    private func runOnce(
        _ series: CampaignSeries, number: Int, actor: String, now: Date, on connection: PostgresConnection
    ) async throws -> SeriesRun? {
        guard let occurrence = series.next else { return nil }
        var outcome = SeriesRun.Outcome.started
        var reason: String?
        var campaignID: Int64?
        if let last = series.recurrence.lastChance(on: occurrence.date), last < now {
            outcome = .missed
            reason = "its hour had passed before an engine ran it (due \(RFC3339.format(occurrence.due)))"
        } else if let previous = try await stillSending(seriesID: series.id, now: now, on: connection) {
            outcome = .skipped
            reason = "the previous run (campaign \(previous.uuidString.lowercased())) was still sending"
        } else {
            try await connection.query("SAVEPOINT series_run", logger: logger)
            do {
                let id = try await CampaignInsert.insert(
                    series.draft(for: occurrence), series: (series.id, number), on: connection, logger: logger)
                _ = try await CampaignLifecycle.transition(
                    id: id, event: .schedule, actor: actor, on: connection, logger: logger)
                campaignID = id
            } catch let error as ValidationError {
                try await connection.query("ROLLBACK TO SAVEPOINT series_run", logger: logger)
                outcome = .failed
                reason = "could not be scheduled: \(error.field): \(error.reason)"
            } catch let error as CampaignError {
                try await connection.query("ROLLBACK TO SAVEPOINT series_run", logger: logger)
                outcome = .failed
                reason = "could not be scheduled: \(error.description)"
            }
        }
        let started = series.runsStarted + (outcome == .started ? 1 : 0)
        var next = series.recurrence.occurrence(after: occurrence.date)
        if let runs = series.recurrence.runs, started >= runs { next = nil }
        try await connection.query(
            """
            INSERT INTO campaign_series_runs (series_id, run, run_date, due_at, outcome, campaign_id, reason)
            VALUES (\(series.id), \(Int32(number)), \(occurrence.date), \(occurrence.due), \(outcome.rawValue), \(campaignID),
                    \(reason))
            """, logger: logger)
        try await connection.query(
            """
            UPDATE campaign_series SET next_run = next_run + 1, runs_started = \(Int32(started)),
                next_run_date = \(next?.date), next_run_at = \(next?.due),
                state = CASE WHEN \(next == nil) THEN 'finished' ELSE state END, updated_at = now()
            WHERE id = \(series.id)
            """, logger: logger)
        var details: [String: PayloadValue] = [
            "seriesID": .int(Int(series.id)), "run": .int(number), "date": .string(occurrence.date),
            "outcome": .string(outcome.rawValue),
        ]
        if let reason { details["reason"] = .string(reason) }
        try await AuditLog.record(
            on: connection, actor: actor, action: "series.run", appID: series.appID, details: details, logger: logger)
        let campaign = try await campaignID.asyncMap { id in
            try await connection.query("SELECT public_id FROM campaigns WHERE id = \(id)", logger: logger).collect().first?
                .decode(UUID.self)
        }
        return SeriesRun(
            seriesID: series.id, run: number, date: occurrence.date, due: occurrence.due, outcome: outcome,
            campaignID: campaign ?? nil, reason: reason, recordedAt: now)
    }

    /// The campaign of the series' latest started run when it is still sending at `now`:
    /// scheduled, or running or paused with a chunk that is due and not done. A local-time
    /// run whose remaining zones have not reached their hour yet is not sending. Its chunks are
    /// read apart, so that they can be distributed on a Citus cluster (migration 0040): Citus
    /// plans no correlated subquery over a distributed table from a reference table.
    private func stillSending(seriesID: Int64, now: Date, on connection: PostgresConnection) async throws -> UUID? {
        let latest = try await connection.query(
            """
            SELECT c.public_id, c.app_id, c.id, c.state FROM campaign_series_runs r JOIN campaigns c ON c.id = r.campaign_id
            WHERE r.series_id = \(seriesID) AND r.outcome = 'started'
              AND r.run = (SELECT max(run) FROM campaign_series_runs WHERE series_id = \(seriesID) AND outcome = 'started')
              AND c.state IN ('scheduled', 'running', 'paused')
            """, logger: logger
        ).collect().first?.decode((UUID, Int64, Int64, String).self)
        guard let (publicID, appID, campaignID, state) = latest else { return nil }
        if state == CampaignState.scheduled.rawValue { return publicID }
        let due = try await connection.query(
            """
            SELECT EXISTS (
                SELECT 1 FROM campaign_chunks WHERE app_id = \(appID) AND campaign_id = \(campaignID) AND state = 'pending'
                  AND (not_before IS NULL OR not_before <= \(now)))
            """, logger: logger
        ).collect().first?.decode(Bool.self)
        return due == true ? publicID : nil
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
