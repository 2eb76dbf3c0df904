import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// The audit log for admins, newest first, filtered by actor, app, action and day.
    func auditPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        guard let audit = dependencies.audit else { throw ConsoleError.notFound("This Herald keeps no audit log.") }
        let apps = try await dependencies.apps.list()
        var model = AuditView.Model(apps: apps.map(\.bundleID))
        var query = AuditQuery(limit: 100)
        for (key, value) in try FormData(query: request.uri.query).fields {
            let text = value.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            switch key {
            case "app":
                guard let app = apps.first(where: { $0.bundleID == text }) else { throw ConsoleError.badRequest("No app \(text).") }
                query.appID = app.id
            case "actor":
                query.actor = text
            case "action":
                query.action = text
            case "since":
                guard let day = ConsoleFormat.day(text) else {
                    throw ConsoleError.badRequest("since must be a day such as 2026-12-01.")
                }
                query.since = day
            case "cursor":
                guard let cursor = Int64(text), cursor > 0 else { throw ConsoleError.badRequest("The page link is malformed.") }
                query.cursor = cursor
                continue
            default:
                throw ConsoleError.badRequest("Unknown filter \(key).")
            }
            model.filter.set(key, text)
        }
        let page = try await audit.list(query)
        model.entries = page.entries
        model.nextCursor = page.nextCursor
        model.paged = query.cursor != nil
        return ConsolePage.render(title: "Audit log", session: session, section: .audit, body: AuditView.render(model))
    }
}
