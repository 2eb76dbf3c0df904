import APNSCore
import Foundation
import HeraldCore

/// The Live Activities pages: pure functions of their models.
enum LiveActivitiesView {
    struct ListModel {
        var apps: [App]
        var bundleID: String
        var state: LiveActivity.State?
        /// The chosen app, when it exists, with its activities and channels.
        var app: App?
        var activities: [LiveActivity] = []
        var channels: [BroadcastChannel] = []
    }

    struct Model {
        var app: App
        var activity: LiveActivity
        var updates: [LiveActivityUpdate]
        var channels: [BroadcastChannel]
        /// What the last update form did.
        var result: HTML?
        /// The update form as sent, shown again after a refusal.
        var values: FormData
        /// Marketing and admins may send while the activity is active.
        var canSend: Bool
    }

    static func renderList(_ model: ListModel) -> HTML {
        var rows: HTML = .empty
        var channels: HTML = .empty
        if let app = model.app {
            channels = channelTable(model.channels, app: app)
            rows = model.activities.html { activity in
                let link: ConsolePath = "/console/live-activities/\(app.bundleID)/\(activity.activityID)"
                return """
                    <tr><td><a href="\(link)">\(activity.activityID)</a></td><td>\(activity.attributesType ?? "–")</td>
                    <td><span class="badge \(activity.state == .active ? "running" : "completed")">\(activity.state.rawValue)</span></td>
                    <td class="num">\(ConsoleFormat.count(activity.tokenCount))</td>
                    <td>\(activity.lastUpdateAt.map(ConsoleFormat.time) ?? "never")</td><td>\(ConsoleFormat.time(activity.createdAt))</td></tr>
                    """
            }
        }
        let appOptions = ConsolePage.appOptions(model.apps, selected: model.bundleID)
        let stateOptions = [("", "Every state"), ("active", "Active"), ("ended", "Ended")].html { option in
            "<option value=\"\(option.0)\"\(option.0 == (model.state?.rawValue ?? "") ? " selected" as HTML : .empty)>\(option.1)</option>"
        }
        let table: HTML =
            rows.text.isEmpty
            ? "<p class=\"muted\" id=\"no-activities\">No Live Activity yet: an app registers an update token under an activity ID, or a start campaign starts one.</p>"
            : """
            <table id="activities"><thead><tr><th>Activity</th><th>Attributes type</th><th>State</th><th class="num">Update tokens</th>
            <th>Last update</th><th>Created</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        return """
            <h1>Live Activities</h1>
            <form class="filters" method="get" action="/console/live-activities">
            <div><label for="la-app">App</label><select id="la-app" name="app">\(appOptions)</select></div>
            <div><label for="la-state">State</label><select id="la-state" name="state">\(stateOptions)</select></div>
            <button type="submit" class="secondary">Show</button></form>
            \(table)
            <h2>Broadcast channels</h2>
            \(channels.text.isEmpty ? "<p class=\"muted\" id=\"no-channels\">No broadcast channel: create one with POST /v1/apps/{bundleID}/channels or herald channels create.</p>" as HTML : channels)
            """
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let (app, activity) = (model.app, model.activity)
        let rows = model.updates.html { update in
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
        let channels = channelTable(model.channels, app: app)
        return """
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
            \(model.result)
            \(model.canSend ? updateForm(session: session, app: app, activity: activity, values: model.values) : .empty)
            \(channels.text.isEmpty ? .empty : "<h2>Broadcast channels</h2><p class=\"muted\">Each update goes to these as one broadcast, beside the update tokens.</p>\(channels)" as HTML)
            <h2>Updates</h2>
            \(model.updates.isEmpty ? "<p class=\"muted\">No update yet.</p>" as HTML : """
                <table id="updates"><thead><tr><th>Update</th><th>Event</th><th>State</th><th class="num">aps.timestamp</th><th>Priority</th>
                <th class="num">Accepted</th><th class="num">Failed</th><th class="num">Dropped</th><th class="num">Superseded</th><th>Queued</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                """)
            """
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

    static func updateForm(session: ConsoleSession, app: App, activity: LiveActivity, values: FormData) -> HTML {
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
}
