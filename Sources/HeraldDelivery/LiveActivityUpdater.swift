import APNSCore
import Foundation
import HeraldCore

/// The API's way in to Live Activity updates: every check that can fail is made before the
/// update is queued, so a refused update leaves nothing behind.
public struct LiveActivityUpdater: LiveActivityUpdating {
    let activities: any LiveActivityRepository
    let templates: any TemplateRepository
    let clock: @Sendable () -> Date

    public init(
        activities: any LiveActivityRepository, templates: any TemplateRepository, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.activities = activities
        self.templates = templates
        self.clock = clock
    }

    public func submit(
        app: App, activityID: String, request: LiveActivityUpdateRequest, actor: String
    ) async throws
        -> LiveActivityEnqueueResult
    {
        let now = clock()
        if let problem = request.validate(now: now) { throw problem }
        // The update as it would be sent now: its template must load and its payload fit.
        let draft = LiveActivityUpdate(
            id: 0, appID: app.id, activityID: activityID, request: request,
            timestamp: LiveActivityRules.nextTimestamp(after: 0, now: now), priority: .immediate, priorityLowered: false,
            state: .queued, actor: actor, counts: LiveActivityUpdate.Counts(), createdAt: now, finishedAt: nil)
        let content = try await LiveActivityContent(draft, templates: templates)
        if let problem = content.problem() { throw problem }
        return try await activities.enqueue(
            appID: app.id, activityID: activityID, request: request, highPriorityPerHour: app.liveActivityHighPriorityPerHour,
            actor: actor, now: now)
    }
}
