import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// An app's Live Activities, newest first, with their update tokens and last update
    /// (docs/live-activities.md).
    func liveActivitiesPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let apps = try await dependencies.apps.list()
        let query = try FormData(query: request.uri.query)
        let bundleID = query["app"] ?? apps.first?.bundleID ?? ""
        var state: LiveActivity.State?
        if let text = query["state"] {
            guard let value = LiveActivity.State(rawValue: text) else { throw ConsoleError.badRequest("state must be active or ended.") }
            state = value
        }
        var rows: HTML = .empty
        var channels: HTML = .empty
        if let app = apps.first(where: { $0.bundleID == bundleID }) {
            if let repository = dependencies.channels {
                let page = try await repository.channels(appID: app.id, state: nil, activityID: nil, cursor: nil, limit: 100)
                channels = Self.channelTable(page.channels, app: app)
            }
            let page = try await dependencies.liveActivities.activities(appID: app.id, state: state, cursor: nil, limit: 100, now: Date())
            rows = page.activities.html { activity in
                let link: ConsolePath = "/console/live-activities/\(app.bundleID)/\(activity.activityID)"
                return """
                    <tr><td><a href="\(link)">\(activity.activityID)</a></td><td>\(activity.attributesType ?? "–")</td>
                    <td><span class="badge \(activity.state == .active ? "running" : "completed")">\(activity.state.rawValue)</span></td>
                    <td class="num">\(ConsoleFormat.count(activity.tokenCount))</td>
                    <td>\(activity.lastUpdateAt.map(ConsoleFormat.time) ?? "never")</td><td>\(ConsoleFormat.time(activity.createdAt))</td></tr>
                    """
            }
        }
        let appOptions = apps.html { app in
            "<option\(app.bundleID == bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let stateOptions = [("", "Every state"), ("active", "Active"), ("ended", "Ended")].html { option in
            "<option value=\"\(option.0)\"\(option.0 == (state?.rawValue ?? "") ? " selected" as HTML : .empty)>\(option.1)</option>"
        }
        let table: HTML =
            rows.text.isEmpty
            ? "<p class=\"muted\" id=\"no-activities\">No Live Activity yet: an app registers an update token under an activity ID, or a start campaign starts one.</p>"
            : """
            <table id="activities"><thead><tr><th>Activity</th><th>Attributes type</th><th>State</th><th class="num">Update tokens</th>
            <th>Last update</th><th>Created</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        let body: HTML = """
            <h1>Live Activities</h1>
            <form class="filters" method="get" action="/console/live-activities">
            <div><label for="la-app">App</label><select id="la-app" name="app">\(appOptions)</select></div>
            <div><label for="la-state">State</label><select id="la-state" name="state">\(stateOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            <h2>Broadcast channels</h2>
            \(channels.text.isEmpty ? "<p class=\"muted\" id=\"no-channels\">No broadcast channel: create one with POST /v1/apps/{bundleID}/channels or herald channels create.</p>" as HTML : channels)
            """
        return ConsolePage.render(title: "Live Activities", session: session, section: .liveActivities, body: body)
    }

    /// One activity: its tokens, its updates with their priority and outcome counts, and (for
    /// marketing and admins, while it is active) a form that sends an update or the end.
    func liveActivityPage(
        _ request: Request, bundleID: String, activityID: String, result: HTML? = nil, values: FormData = FormData()
    )
        async throws -> Response
    {
        let session = try await auth.require(request, role: .viewer)
        let (app, activity) = try await findActivity(bundleID: bundleID, activityID: activityID)
        let updates = try await dependencies.liveActivities.updates(appID: app.id, activityID: activity.activityID, beforeID: nil, limit: 50)
        let rows = updates.html { update in
            """
            <tr><td>\(String(update.id))</td><td>\(update.request.event.rawValue)</td>
            <td><span class="badge \(update.state == .sent ? "accepted" : update.state == .superseded ? "skipped" : "scheduled")">\(update.state.rawValue)</span></td>
            <td class="num">\(String(update.timestamp))</td>
            <td>\(String(update.priority.rawValue))\(update.priorityLowered ? " (10 asked, over the allowance)" as HTML : .empty)</td>
            <td class="num">\(ConsoleFormat.count(update.counts.accepted))</td><td class="num">\(ConsoleFormat.count(update.counts.failed))</td>
            <td class="num">\(ConsoleFormat.count(update.counts.dropped))</td><td class="num">\(ConsoleFormat.count(update.counts.superseded))</td>
            <td>\(ConsoleFormat.time(update.createdAt))</td></tr>
            """
        }
        var channels: HTML = .empty
        if let repository = dependencies.channels {
            let page = try await repository.channels(
                appID: app.id, state: nil, activityID: activity.activityID, cursor: nil, limit: 20)
            channels = Self.channelTable(page.channels, app: app)
        }
        let canSend = session.user.role >= .marketing && activity.state == .active
        let body: HTML = """
            <p><a href="\("/console/live-activities?app=\(query: app.bundleID)" as ConsolePath)">All Live Activities of \(app.bundleID)</a></p>
            <h1>\(activity.activityID) <span class="badge \(activity.state == .active ? "running" : "completed")">\(activity.state.rawValue)</span></h1>
            <div class="card" id="activity-summary"><div class="grid2"><div>
            <p><b>Attributes type</b> \(activity.attributesType ?? "–")</p>
            <p><b>Update tokens</b> \(ConsoleFormat.count(activity.tokenCount)) (registered within 12 hours)</p>
            <p><b>Last aps.timestamp</b> \(String(activity.lastTimestamp))</p>
            </div><div>
            <p><b>Created</b> \(ConsoleFormat.time(activity.createdAt)) · <b>last update</b> \(activity.lastUpdateAt.map(ConsoleFormat.time) ?? "never")</p>
            <p><b>Ended</b> \(activity.endedAt.map(ConsoleFormat.time) ?? "–") · <b>tokens dropped from</b> \(activity.dismissAt.map(ConsoleFormat.time) ?? "–")</p>
            <p><b>Priority-10 updates per hour</b> \(String(app.liveActivityHighPriorityPerHour))</p>
            </div></div></div>
            \(result)
            \(canSend ? updateForm(session: session, app: app, activity: activity, values: values) : .empty)
            \(channels.text.isEmpty ? .empty : "<h2>Broadcast channels</h2><p class=\"muted\">Each update goes to these as one broadcast, beside the update tokens.</p>\(channels)" as HTML)
            <h2>Updates</h2>
            \(updates.isEmpty ? "<p class=\"muted\">No update yet.</p>" as HTML : """
                <table id="updates"><thead><tr><th>Update</th><th>Event</th><th>State</th><th class="num">aps.timestamp</th><th>Priority</th>
                <th class="num">Accepted</th><th class="num">Failed</th><th class="num">Dropped</th><th class="num">Superseded</th><th>Queued</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                """)
            """
        return ConsolePage.render(title: activity.activityID, session: session, section: .liveActivities, body: body)
    }

    /// Channels with their environment, activity, state and broadcasts.
    static func channelTable(_ channels: [BroadcastChannel], app: App) -> HTML {
        guard !channels.isEmpty else { return .empty }
        let rows = channels.html { channel in
            let activity: HTML =
                channel.activityID.map {
                    "<a href=\"\("/console/live-activities/\(app.bundleID)/\($0)" as ConsolePath)\">\($0)</a>"
                } ?? "–"
            let badge = channel.state == .active ? "running" : channel.state == .gone ? "failed" : "completed"
            return """
                <tr><td><code>\(channel.channelID.value)</code></td><td>\(channel.environment.rawValue)</td>
                <td>\(channel.storagePolicy == .mostRecent ? "latest kept" : "none kept")</td><td>\(activity)</td>
                <td><span class="badge \(badge)">\(channel.state.rawValue)</span></td>
                <td class="num">\(ConsoleFormat.count(channel.broadcasts))</td>
                <td>\(channel.lastBroadcastAt.map(ConsoleFormat.time) ?? "never")</td><td>\(ConsoleFormat.time(channel.createdAt))</td></tr>
                """
        }
        return """
            <table id="channels"><thead><tr><th>Channel</th><th>Environment</th><th>Offline devices</th><th>Activity</th><th>State</th>
            <th class="num">Broadcasts</th><th>Last broadcast</th><th>Created</th></tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    private func updateForm(session: ConsoleSession, app: App, activity: LiveActivity, values: FormData) -> HTML {
        let state = values.raw("contentState").isEmpty ? "{\n  \n}" : values.raw("contentState")
        let event = values["event"] ?? "update"
        return """
            <div class="card" id="send-update"><h2>Send an update</h2>
            <p class="hint">It goes to every update token of the activity. Herald gives it the next aps.timestamp and decides its priority: 5 for a silent update, 10 for an alert or an end, 10 on request within the hourly allowance.</p>
            <form method="post" action="\("/console/live-activities/\(app.bundleID)/\(activity.activityID)/updates" as ConsolePath)">
            \(ConsolePage.csrfField(session))
            <div class="grid2"><div>
            <label for="u-event">Event</label><select id="u-event" name="event">
            <option value="update"\(event == "update" ? " selected" as HTML : .empty)>update</option>
            <option value="end"\(event == "end" ? " selected" as HTML : .empty)>end: nothing is sent after it</option></select>
            <label for="u-state">Content state (JSON object)</label><textarea id="u-state" name="contentState" rows="5">\(state)</textarea>
            </div><div>
            <label for="u-title">Alert title (optional)</label><input type="text" id="u-title" name="alertTitle" value="\(values.raw("alertTitle"))">
            <label for="u-body">Alert body</label><input type="text" id="u-body" name="alertBody" value="\(values.raw("alertBody"))">
            <label><input type="checkbox" name="priority" value="10"\(values["priority"] == "10" ? " checked" as HTML : .empty)> Ask for priority 10</label>
            </div></div>
            <p class="actions"><button type="submit" id="send-update-button">Send</button></p></form></div>
            """
    }

    /// Queues the form's update through the API's path (the same checks), then shows the activity.
    func liveActivityUpdate(_ request: Request, bundleID: String, activityID: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let (app, activity) = try await findActivity(bundleID: bundleID, activityID: activityID)
        func again(_ message: String) async throws -> Response {
            try await liveActivityPage(
                request, bundleID: bundleID, activityID: activityID,
                result: "<p class=\"error\" id=\"update-problem\">\(message)</p>", values: form)
        }
        guard case .object(let state)? = try? JSONReader.parse(form.raw("contentState").utf8) else {
            return try await again("The content state must be a JSON object, such as {\"status\": \"out-for-delivery\"}.")
        }
        let event: Payload.LiveActivityEvent = form["event"] == "end" ? .end : .update
        var alert: LiveActivityUpdateRequest.Alert?
        switch (form["alertTitle"], form["alertBody"]) {
        case (let title?, let body?): alert = .text(Payload.LiveActivityAlert(title: .plain(title), body: .plain(body), sound: "default"))
        case (nil, nil): break
        default: return try await again("Give the alert both a title and a body, or neither.")
        }
        let update = LiveActivityUpdateRequest(
            event: event, contentState: state, alert: alert, priority: form["priority"] == "10" ? .immediate : nil)
        let outcome: LiveActivityEnqueueResult
        do {
            outcome = try await dependencies.liveActivityUpdater.submit(
                app: app, activityID: activity.activityID, request: update, actor: session.user.actor)
        } catch let error as ValidationError {
            return try await again("\(error.field): \(error.reason)")
        }
        switch outcome {
        case .queued(let queued), .repeated(let queued):
            let note: HTML = queued.priorityLowered ? " Priority 10 was asked beyond the hourly allowance: it goes at 5." : .empty
            return try await liveActivityPage(
                request, bundleID: bundleID, activityID: activityID,
                result:
                    "<p class=\"notice\" id=\"update-queued\">Update \(String(queued.id)) queued at priority \(String(queued.priority.rawValue)), aps.timestamp \(String(queued.timestamp)).\(note)</p>"
            )
        case .ended:
            return try await again("The activity has ended: it takes no more updates.")
        case .unknownActivity:
            throw ConsoleError.notFound("No activity \(activityID) in \(bundleID).")
        }
    }

    /// The app and activity of a page's path, percent-decoded.
    static func activityPath(_ parameters: Parameters) throws -> (String, String) {
        let app = try parameters.require("app")
        let activity = try parameters.require("activity")
        return (app.removingPercentEncoding ?? app, activity.removingPercentEncoding ?? activity)
    }

    private func findActivity(bundleID: String, activityID: String) async throws -> (App, LiveActivity) {
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            LiveActivityRules.activityIDProblem(activityID) == nil,
            let activity = try await dependencies.liveActivities.activity(appID: app.id, activityID: activityID, now: Date())
        else { throw ConsoleError.notFound("No activity \(activityID) in \(bundleID).") }
        return (app, activity)
    }
}
