import APNSCore
import Foundation
import HeraldCore

/// The campaign page: a pure function of its model. Its live part (summary, state, actions,
/// figures) is rendered alone too, for the page's script to swap in.
enum CampaignDetailView {
    struct LiveModel {
        var campaign: Campaign
        var app: App?
        /// The A/B and holdout report, for a campaign that has variants or a holdout.
        var report: CampaignReport?
        var timeline: CampaignTimeline
        /// Marketing and admins see the actions and the test send.
        var canSteer: Bool
    }

    struct Model {
        var live: LiveModel
        var testResults: TestResults?
    }

    /// Nothing on the page changes by itself: a draft (until someone schedules it) or a
    /// finished campaign. Its page does not refresh.
    static func isSettled(_ campaign: Campaign) -> Bool {
        campaign.state == .draft || campaign.state.isFinished
    }

    enum TestResults {
        case refused([String])
        case sent([DirectSendResult])
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let (campaign, app) = (model.live.campaign, model.live.app)
        let path: ConsolePath = "/console/campaigns/\(campaign.publicID)"
        let live = renderLive(model.live, session: session)
        return """
            <p class="muted"><a href="/console/campaigns">Campaigns</a> ›</p>
            <h1>\(campaign.name) <span id="live-status"></span></h1>
            <div id="live" data-live-url="\(path)/live" data-final="\(isSettled(campaign) ? "true" : "false")">\(live)</div>
            \(model.live.canSteer ? testForm(campaign, app: app, session: session, path: path, results: model.testResults) : .empty)
            """
    }

    /// Everything on the campaign page that can change: its summary, state, actions and figures.
    static func renderLive(_ model: LiveModel, session: ConsoleSession) -> HTML {
        let (campaign, app, report, timeline) = (model.campaign, model.app, model.report, model.timeline)
        let path: ConsolePath = "/console/campaigns/\(campaign.publicID)"
        let counters = campaign.counters
        return """
            <div class="card grid2" id="summary"><div>
            <p><b>App</b> \(app?.bundleID ?? "?")</p>
            <p><b>Template</b> <a href="\("/console/templates/\(campaign.templateName)" as ConsolePath)">\(campaign.templateName)</a>\(campaign.templateVersion.map { " v\($0)" } ?? " (latest until scheduled)")
             · \(campaign.localization == .server ? "server-side text" : "loc-key for the app")</p>
            <p><b>Schedule</b> \(schedule(campaign))</p>
            <p><b>Rate limit</b> \(campaign.rateLimit.map { "\(ConsoleFormat.count($0)) per second" } ?? "none")</p>
            </div><div>
            <p><b>Audience</b> <code>\(audienceText(campaign.audience))</code></p>
            \(campaign.holdoutBasisPoints > 0 ? "<p><b>Holdout</b> \(String(format: "%.2f", Double(campaign.holdoutBasisPoints) / 100)) %</p>" as HTML : .empty)
            <p><b>Created</b> \(ConsoleFormat.time(campaign.createdAt)) · <b>Started</b> \(ConsoleFormat.time(campaign.startedAt))
             · <b>Finished</b> \(ConsoleFormat.time(campaign.finishedAt))</p>
            \(campaign.notes.map { "<p><b>Notes</b> \($0)</p>" as HTML })
            </div></div>
            <div class="card"><p><span class="badge \(campaign.state.rawValue)" id="state">\(campaign.state.rawValue)</span>
            \(campaign.failureReason.map { " <span class=\"error\">\($0)</span>" as HTML })</p>
            \(model.canSteer ? actions(campaign, session: session, path: path) : .empty)
            \(campaign.state == .draft
                ? "<p class=\"muted\" id=\"draft-note\">A draft: nothing is sent until it is scheduled. Its audience is counted when it starts.</p>" as HTML
                : CampaignFigures.progress(counters) + CampaignFigures.figures(counters) + CampaignFigures.outcomeChart(counters))
            <p><a href="\(path)/deliveries">Delivery ledger</a></p></div>
            \(timeline.minutes.isEmpty && timeline.languages.isEmpty ? .empty : "<div class=\"card\">\(CampaignCharts.sendsPerMinute(timeline.minutes))\(CampaignCharts.outcomesByLanguage(timeline.languages))</div>" as HTML)
            \(CampaignFigures.failures(counters, ledger: "\(path)/deliveries"))
            \(CampaignFigures.variants(campaign, report: report))
            \(CampaignFigures.zones(counters))
            """
    }

    static func actions(_ campaign: Campaign, session: ConsoleSession, path: ConsolePath) -> HTML {
        let machine = CampaignStateMachine(state: campaign.state)
        var buttons = HTML.empty
        if machine.allows(.edit) { buttons += "<a class=\"button secondary\" href=\"\(path)/edit\">Edit draft</a>" }
        if machine.allows(.schedule) { buttons += ConsolePage.button("Schedule", action: "\(path)/schedule", session: session) }
        if machine.allows(.pause) { buttons += ConsolePage.button("Pause", action: "\(path)/pause", session: session, style: "secondary") }
        if machine.allows(.resume) { buttons += ConsolePage.button("Resume", action: "\(path)/resume", session: session) }
        if machine.allows(.cancel) {
            buttons += ConsolePage.button(
                "Cancel campaign", action: "\(path)/cancel", session: session, style: "danger",
                confirm: "Cancel this campaign? Devices not reached yet will not get it.")
        }
        return buttons.text.isEmpty ? .empty : "<div class=\"actions\">\(buttons)</div>"
    }

    static func testForm(
        _ campaign: Campaign, app: App?, session: ConsoleSession, path: ConsolePath, results: TestResults?
    ) -> HTML {
        let variants =
            campaign.messages.count > 1
            ? """
            <label for="t-variant">Variant</label><select id="t-variant" name="variant">\(campaign.messages.html { "<option>\($0.name)</option>" })</select>
            """ as HTML : .empty
        let environments = APNSEnvironment.allCases.html { environment in
            "<option\(environment == app?.defaultEnvironment ? " selected" as HTML : .empty)>\(environment.rawValue)</option>"
        }
        var outcome = HTML.empty
        switch results {
        case .refused(let errors)?:
            outcome = "<div class=\"notice bad\" role=\"alert\">\(errors.html { "<p>\($0)</p>" })</div>"
        case .sent(let results)?:
            outcome = """
                <div class="scroll"><table id="test-results"><thead><tr><th>Token</th><th>Outcome</th><th>Reason</th><th>Language</th></tr></thead><tbody>
                \(results.html { result in
                    "<tr><td><code>\(ConsoleFormat.tokenSuffix(result.token.hex))</code></td><td><span class=\"badge \(result.outcome.kind.rawValue)\">\(result.outcome.kind.rawValue)</span></td><td>\(result.outcome.reason ?? "")</td><td>\(result.language?.value ?? "")</td></tr>"
                })</tbody></table></div>
                """
        case nil:
            break
        }
        return """
            <div class="card" id="test-send"><h2>Test send</h2>
            <p class="hint">Sends this campaign's notification now to the tokens listed, registered or not. Test sends are kept apart: they never count in the campaign's figures.</p>
            \(outcome)
            <form method="post" action="\(path)/test">\(ConsolePage.csrfField(session))
            <label for="t-tokens">Device tokens (one per line, at most 20)</label><textarea id="t-tokens" name="tokens" required></textarea>
            <label for="t-environment">Environment</label><select id="t-environment" name="environment">\(environments)</select>
            \(variants)
            <p class="actions"><button type="submit">Send test</button></p></form></div>
            """
    }

    static func schedule(_ campaign: Campaign) -> String {
        var text: String
        if let local = campaign.localDelivery {
            text = "\(local.date) at \(local.time) in each device's time zone (late zones: \(local.latePolicy.rawValue))"
        } else if let sendAt = campaign.sendAt {
            text = ConsoleFormat.time(sendAt)
        } else {
            text = "as soon as it is scheduled"
        }
        switch campaign.quietHoursMode {
        case .hold: text += "; held through the app's quiet hours"
        case .skip: text += "; skips devices in quiet hours"
        case .ignore: break
        }
        return text
    }

    static func audienceText(_ filter: AudienceFilter) -> String {
        // The caller's filter (segment included), not Herald's own additions to it.
        var audience = filter
        audience.segmentTime = nil
        audience.savedSegmentDefinition = nil
        audience.startTokenType = nil
        let text = (try? CanonicalJSON.text(audience)) ?? "{}"
        return text == "{}" ? "every valid device" : text
    }
}
