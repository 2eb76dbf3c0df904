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
        var model = LiveActivitiesView.ListModel(apps: apps, bundleID: bundleID, state: state)
        if let app = apps.first(where: { $0.bundleID == bundleID }) {
            model.app = app
            if let repository = dependencies.channels {
                model.channels = try await repository.channels(appID: app.id, state: nil, activityID: nil, cursor: nil, limit: 100).channels
            }
            model.activities = try await dependencies.liveActivities.activities(
                appID: app.id, state: state, cursor: nil, limit: 100, now: Date()
            ).activities
        }
        let body = LiveActivitiesView.renderList(model)
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
        var channels: [BroadcastChannel] = []
        if let repository = dependencies.channels {
            channels = try await repository.channels(appID: app.id, state: nil, activityID: activity.activityID, cursor: nil, limit: 20).channels
        }
        let model = LiveActivitiesView.Model(
            app: app, activity: activity, updates: updates, channels: channels, result: result, values: values,
            canSend: session.user.role >= .marketing && activity.state == .active)
        let body = LiveActivitiesView.render(model, session: session)
        return ConsolePage.render(title: activity.activityID, session: session, section: .liveActivities, body: body)
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
