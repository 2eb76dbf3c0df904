import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `POST /v1/admin/prune`: deletes dead tokens (admin keys only).
struct PruneController {
    let directory: AppDirectory
    let pruner: any DevicePruner

    /// The body: what to prune, in which app (every app without), or only count it.
    struct Body: Decodable {
        var dryRun: Bool?
        var invalidatedBefore: Date?
        var notRegisteredSince: Date?
        var app: String?
    }

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
        let body = try await RequestDecoding.body(Body.self, of: request, context: context)
        var appID: Int64?
        if let bundleID = body.app {
            do {
                appID = try await directory.require(bundleID: bundleID).id
            } catch var problem as Problem {
                problem.field = "app"
                throw problem
            }
        }
        let request = try PruneRequest(
            invalidatedBefore: body.invalidatedBefore, notRegisteredSince: body.notRegisteredSince,
            appID: appID, dryRun: body.dryRun ?? false)
        let result = try await pruner.prune(request, actor: principal.actor)
        return Summary(dryRun: result.dryRun, total: result.total, byReason: result.byReason, batches: result.batches)
    }
}
