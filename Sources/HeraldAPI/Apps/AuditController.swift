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

    /// `GET /v1/admin/audit`: filters by actor, action, app and time, and keyset paging.
    struct ListQuery: Decodable {
        var actor: String?
        var action: String?
        var app: String?
        var since: Date?
        var cursor: Int64?
        var limit: Int?
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> AuditPageResponse {
        try context.requirePrincipal().requireAdmin()
        let given = try RequestDecoding.query(ListQuery.self, of: request)
        var query = AuditQuery()
        query.actor = try given.actor.map { try Self.filter($0, field: "actor") }
        query.action = try given.action.map { try Self.filter($0, field: "action") }
        if let bundleID = given.app { query.appID = try await directory.require(bundleID: bundleID, field: "app").id }
        query.since = given.since
        query.cursor = try PageQuery.cursor(given.cursor)
        query.limit = try PageQuery.limit(given.limit, maximum: AuditQuery.maximumLimit, fallback: query.limit)
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
