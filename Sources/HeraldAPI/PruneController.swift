import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `POST /v1/admin/prune`: deletes dead tokens (admin keys only).
struct PruneController {
    let directory: AppDirectory
    let pruner: any DevicePruner

    static let fields: Set<String> = ["dryRun", "invalidatedBefore", "notRegisteredSince", "app"]

    struct Summary: ResponseEncodable {
        var dryRun: Bool
        var total: Int
        var byReason: [String: Int]
        var batches: Int
    }

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.post("prune", use: prune)
    }

    @Sendable func prune(request: Request, context: HeraldRequestContext) async throws -> Summary {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let object = try await JSONFields.bodyObject(request, context: context)
        try JSONFields.refuseUnknown(object, known: Self.fields)
        var dryRun = false
        switch object["dryRun"] {
        case nil, .null?: break
        case .bool(let value)?: dryRun = value
        default: throw Problem.invalidField("dryRun", "must be true or false")
        }
        var appID: Int64?
        switch object["app"] {
        case nil, .null?: break
        case .string(let bundleID)?:
            do {
                appID = try await directory.require(bundleID: bundleID).id
            } catch var problem as Problem {
                problem.field = "app"
                throw problem
            }
        default: throw Problem.invalidField("app", "must be a bundle ID")
        }
        let request = try PruneRequest(
            invalidatedBefore: try Self.date(object, "invalidatedBefore"),
            notRegisteredSince: try Self.date(object, "notRegisteredSince"),
            appID: appID, dryRun: dryRun)
        let result = try await pruner.prune(request, actor: principal.actor)
        return Summary(dryRun: result.dryRun, total: result.total, byReason: result.byReason, batches: result.batches)
    }

    static func date(_ object: [String: PayloadValue], _ field: String) throws -> Date? {
        switch object[field] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let date = RFC3339.parse(text) else {
                throw Problem.invalidField(field, "must be an RFC 3339 time such as 2026-01-31T00:00:00Z")
            }
            return date
        default: throw Problem.invalidField(field, "must be an RFC 3339 time such as 2026-01-31T00:00:00Z")
        }
    }
}
