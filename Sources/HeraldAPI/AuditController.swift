import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `GET /v1/admin/audit`: who changed what, newest first, for admins; filtered by actor,
/// action, app and time, paged by keyset.
struct AuditController {
    let directory: AppDirectory
    let audit: any AuditRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> AuditPageResponse {
        try context.requirePrincipal().requireAdmin()
        var query = AuditQuery()
        for (key, value) in request.uri.queryParameters {
            let text = String(value)
            switch String(key) {
            case "actor":
                query.actor = try Self.filter(text, field: "actor")
            case "action":
                query.action = try Self.filter(text, field: "action")
            case "app":
                query.appID = try await directory.require(bundleID: text, field: "app").id
            case "since":
                query.since = try PageQuery.since(text)
            case "cursor":
                query.cursor = try PageQuery.cursor(text)
            case "limit":
                query.limit = try PageQuery.limit(text, maximum: AuditQuery.maximumLimit)
            default:
                throw Problem.invalidField(String(key), "unknown query parameter")
            }
        }
        let page = try await audit.list(query)
        return AuditPageResponse(entries: page.entries.map(AuditEntryResponse.init), nextCursor: page.nextCursor.map(String.init))
    }

    static func filter(_ text: String, field: String) throws -> String {
        guard !text.isEmpty, text.utf8.count <= 200, TextRules.forbiddenCharacter(in: text) == nil else {
            throw Problem.invalidField(field, "must be 1 to 200 characters without control characters")
        }
        return text
    }
}

struct AuditEntryResponse: ResponseEncodable {
    var id: String
    var at: Date
    var actor: String
    var action: String
    var app: String?
    var details: PayloadValue

    init(_ entry: AuditEntry) {
        id = String(entry.id)
        at = entry.at
        actor = entry.actor
        action = entry.action
        app = entry.bundleID
        details = entry.details
    }
}

struct AuditPageResponse: ResponseEncodable {
    var entries: [AuditEntryResponse]
    var nextCursor: String?
}
