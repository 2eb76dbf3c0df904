import Foundation
import HeraldCore

/// The recurring campaign pages: pure functions of their models.
enum SeriesView {
    struct ListModel {
        var series: [CampaignSeries]
        var apps: [App]
    }

    struct Model {
        var series: CampaignSeries
        var bundleID: String
        var runs: [SeriesRun]
        var notice: HTML?
        /// Marketing and admins may pause, resume and stop.
        var canSteer: Bool
        /// The audience as one line.
        var audience: String
    }

    static func renderList(_ model: ListModel) -> HTML {
        let rows = model.series.html { series in
            """
            <tr><td><a href="\("/console/series/\(series.publicID)" as ConsolePath)">\(series.name)</a></td>
            <td>\(model.apps.first { $0.id == series.appID }?.bundleID ?? "–")</td>
            <td><span class="badge \(badge(series.state))">\(series.state.rawValue)</span></td>
            <td>\(series.recurrence.summary)</td><td class="num">\(String(series.runsStarted))</td>
            <td>\(series.next.map { "\($0.date) (\(ConsoleFormat.time($0.due)))" } ?? "–")</td></tr>
            """
        }
        let table: HTML =
            model.series.isEmpty
            ? "<p class=\"muted\" id=\"no-series\">No recurring campaign yet: create one with POST /v1/series or herald series create.</p>"
            : """
            <table id="series"><thead><tr><th>Name</th><th>App</th><th>State</th><th>Schedule</th><th class="num">Runs started</th>
            <th>Next run</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        return """
            <h1>Recurring campaigns</h1>
            <p class="muted">Each run is a campaign of its own, its audience read when it starts; a run due while the previous one still sends is skipped.</p>
            \(table)
            """
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let series = model.series
        let rows = model.runs.html { run in
            """
            <tr><td class="num">\(String(run.run))</td><td>\(run.date)</td><td>\(ConsoleFormat.time(run.due))</td>
            <td><span class="badge \(badge(run.outcome))">\(run.outcome.rawValue)</span></td>
            <td>\(run.campaignID.map { "<a href=\"\("/console/campaigns/\($0)" as ConsolePath)\">campaign</a>" as HTML } ?? .empty)</td>
            <td>\(run.reason ?? "")</td></tr>
            """
        }
        var buttons: HTML = .empty
        if model.canSteer {
            let path: ConsolePath = "/console/series/\(series.publicID)"
            if series.state == .active { buttons += ConsolePage.button("Pause", action: "\(path)/pause", session: session, style: "secondary") }
            if series.state == .paused { buttons += ConsolePage.button("Resume", action: "\(path)/resume", session: session) }
            if series.state == .active || series.state == .paused {
                buttons += ConsolePage.button(
                    "Stop for good", action: "\(path)/stop", session: session, style: "danger",
                    confirm: "Stop \(series.name)? No run starts again; runs under way go on.")
            }
        }
        return """
            <p><a href="/console/series">Recurring campaigns</a> · \(model.bundleID)</p>
            <h1>\(series.name) <span class="badge \(badge(series.state))" id="series-state">\(series.state.rawValue)</span></h1>
            \(model.notice ?? .empty)
            <dl class="facts">
            <dt>Schedule</dt><dd id="series-schedule">\(series.recurrence.summary)</dd>
            <dt>Next run</dt><dd id="series-next">\(series.next.map { "\($0.date), due \(ConsoleFormat.time($0.due))" } ?? "none")</dd>
            <dt>Runs started</dt><dd>\(String(series.runsStarted))</dd>
            <dt>Template</dt><dd>\(series.blueprint.templateName)</dd>
            <dt>Audience</dt><dd><code>\(model.audience)</code></dd>
            </dl>
            <div class="actions">\(buttons)</div>
            <h2>Runs</h2>
            \(model.runs.isEmpty ? "<p class=\"muted\" id=\"no-runs\">No run yet.</p>" as HTML : """
                <table id="runs"><thead><tr><th class="num">Run</th><th>Date</th><th>Due</th><th>Outcome</th><th>Campaign</th><th>Why</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                """)
            """
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
}
