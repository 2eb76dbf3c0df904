import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Recurring campaigns, newest first, with their schedule and next run
    /// (docs/campaigns.md "Recurring campaigns").
    func seriesListPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try seriesRepository()
        let apps = try await dependencies.apps.list()
        let rows = try await repository.list(appIDs: nil, limit: 200).html { series in
            """
            <tr><td><a href="\("/console/series/\(series.publicID)" as ConsolePath)">\(series.name)</a></td>
            <td>\(apps.first { $0.id == series.appID }?.bundleID ?? "–")</td>
            <td><span class="badge \(Self.badge(series.state))">\(series.state.rawValue)</span></td>
            <td>\(series.recurrence.summary)</td><td class="num">\(String(series.runsStarted))</td>
            <td>\(series.next.map { "\($0.date) (\(ConsoleFormat.time($0.due)))" } ?? "–")</td></tr>
            """
        }
        let table: HTML =
            rows.text.isEmpty
            ? "<p class=\"muted\" id=\"no-series\">No recurring campaign yet: create one with POST /v1/series or herald series create.</p>"
            : """
            <table id="series"><thead><tr><th>Name</th><th>App</th><th>State</th><th>Schedule</th><th class="num">Runs started</th>
            <th>Next run</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        let body: HTML = """
            <h1>Recurring campaigns</h1>
            <p class="muted">Each run is a campaign of its own, its audience read when it starts; a run due while the previous one still sends is skipped.</p>
            \(table)
            """
        return ConsolePage.render(title: "Recurring campaigns", session: session, section: .series, body: body)
    }

    /// One series: what each run sends, its schedule, every run's outcome, and pause, resume, stop.
    func seriesPage(_ request: Request, id: String, notice: HTML? = nil) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try seriesRepository()
        guard let publicID = UUID(uuidString: id), let series = try await repository.get(publicID: publicID) else {
            throw ConsoleError.notFound("No such recurring campaign.")
        }
        let bundleID = try await dependencies.apps.find(id: series.appID)?.bundleID ?? "–"
        let runs = try await repository.runs(seriesID: series.id, limit: 200)
        let rows = runs.html { run in
            """
            <tr><td class="num">\(String(run.run))</td><td>\(run.date)</td><td>\(ConsoleFormat.time(run.due))</td>
            <td><span class="badge \(Self.badge(run.outcome))">\(run.outcome.rawValue)</span></td>
            <td>\(run.campaignID.map { "<a href=\"\("/console/campaigns/\($0)" as ConsolePath)\">campaign</a>" as HTML } ?? .empty)</td>
            <td>\(run.reason ?? "")</td></tr>
            """
        }
        var buttons: HTML = .empty
        if session.user.role >= .marketing {
            let path: ConsolePath = "/console/series/\(series.publicID)"
            if series.state == .active { buttons += ConsolePage.button("Pause", action: "\(path)/pause", session: session, style: "secondary") }
            if series.state == .paused { buttons += ConsolePage.button("Resume", action: "\(path)/resume", session: session) }
            if series.state == .active || series.state == .paused {
                buttons += ConsolePage.button(
                    "Stop for good", action: "\(path)/stop", session: session, style: "danger",
                    confirm: "Stop \(series.name)? No run starts again; runs under way go on.")
            }
        }
        let audience = Self.audienceText(series.blueprint.audience)
        let body: HTML = """
            <p><a href="/console/series">Recurring campaigns</a> · \(bundleID)</p>
            <h1>\(series.name) <span class="badge \(Self.badge(series.state))" id="series-state">\(series.state.rawValue)</span></h1>
            \(notice ?? .empty)
            <dl class="facts">
            <dt>Schedule</dt><dd id="series-schedule">\(series.recurrence.summary)</dd>
            <dt>Next run</dt><dd id="series-next">\(series.next.map { "\($0.date), due \(ConsoleFormat.time($0.due))" } ?? "none")</dd>
            <dt>Runs started</dt><dd>\(String(series.runsStarted))</dd>
            <dt>Template</dt><dd>\(series.blueprint.templateName)</dd>
            <dt>Audience</dt><dd><code>\(audience)</code></dd>
            </dl>
            <div class="actions">\(buttons)</div>
            <h2>Runs</h2>
            \(rows.text.isEmpty ? "<p class=\"muted\" id=\"no-runs\">No run yet.</p>" as HTML : """
                <table id="runs"><thead><tr><th class="num">Run</th><th>Date</th><th>Due</th><th>Outcome</th><th>Campaign</th><th>Why</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                """)
            """
        return ConsolePage.render(title: series.name, session: session, section: .series, body: body)
    }

    func seriesTransition(_ request: Request, id: String, event: CampaignSeries.Event) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let repository = try seriesRepository()
        guard let publicID = UUID(uuidString: id) else { throw ConsoleError.notFound("No such recurring campaign.") }
        do {
            guard try await repository.transition(publicID: publicID, event: event, actor: session.user.actor, now: Date()) != nil
            else { throw ConsoleError.notFound("No such recurring campaign.") }
        } catch let error as SeriesError {
            return try await seriesPage(request, id: id, notice: "<p class=\"error\">\(error.description)</p>")
        }
        return Response.redirect(to: "/console/series/\(publicID)" as ConsolePath, type: .found)
    }

    static func badge(_ state: CampaignSeries.State) -> String {
        switch state {
        case .active: "running"
        case .paused: "paused"
        case .stopped: "cancelled"
        case .finished: "completed"
        }
    }

    static func badge(_ outcome: SeriesRun.Outcome) -> String {
        switch outcome {
        case .started: "accepted"
        case .skipped, .missed: "skipped"
        case .failed: "failed"
        }
    }

    private func seriesRepository() throws -> any CampaignSeriesRepository {
        guard let repository = dependencies.series else { throw ConsoleError.notFound("No such page.") }
        return repository
    }
}
