import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/admin/keys`: API keys, for admins. A key's secret is in the answer that creates it and
/// nowhere else, ever; lists show its first characters. Revoking works at once on every
/// instance: this one forgets the cached key with its answer, the others on the database's
/// notification (`APIKeyCache`).
struct KeyController {
    /// `POST /v1/admin/keys`: the role, the app of an `app` key, the apps a key is limited to,
    /// a name and when it expires.
    struct CreateBody: Decodable {
        var role: APIKeyRole
        var app: String?
        var apps: [String]?
        var name: String?
        var expiresAt: Date?
    }

    let directory: AppDirectory
    let keys: any APIKeyRepository
    let cache: APIKeyCache

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.post(use: create)
        group.delete(":keyID", use: revoke)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> KeyListResponse {
        try context.requirePrincipal().requireAdmin()
        try RequestDecoding.noQuery(request)
        return KeyListResponse(keys: try await keys.list().map { KeyResponse($0) })
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<KeyResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let body = try await RequestDecoding.body(CreateBody.self, of: request, context: context)
        var appID: Int64?
        if let bundleID = body.app {
            appID = try await directory.require(bundleID: bundleID, field: "app").id
        }
        var scope: [Int64]?
        if let bundleIDs = body.apps {
            guard bundleIDs.count <= NewAPIKey.maximumScope else {
                throw Problem.invalidField("apps", "at most \(NewAPIKey.maximumScope) apps")
            }
            var ids = [Int64]()
            for (index, bundleID) in bundleIDs.enumerated() {
                ids.append(try await directory.require(bundleID: bundleID, field: "apps[\(index)]").id)
            }
            scope = ids
        }
        let new = try NewAPIKey(role: body.role, appID: appID, appScope: scope, name: body.name, expiresAt: body.expiresAt)
        let (key, secret) = try await keys.create(new, actor: principal.keyPrefix)
        return EditedResponse(status: .created, response: KeyResponse(key, secret: secret.value))
    }

    @Sendable func revoke(request: Request, context: HeraldRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        guard let id = Int64(try context.parameters.require("keyID")), id > 0,
            try await keys.revoke(id: id, actor: principal.keyPrefix)
        else {
            if let id = Int64(try context.parameters.require("keyID")) { cache.forget(keyID: id) }
            throw Problem(
                status: .notFound, slug: "unknown-key", title: "Unknown key",
                detail: "no active key has this ID", field: "keyID")
        }
        cache.forget(keyID: id)
        return Response(status: .noContent)
    }
}

/// A key as listed; `key` (the secret) only in the answer that creates it.
struct KeyResponse: ResponseEncodable {
    var id: String
    var prefix: String
    var role: String
    var app: String?
    var apps: [String]?
    var name: String?
    var createdAt: Date
    var lastUsedAt: Date?
    var expiresAt: Date?
    var revokedAt: Date?
    /// `active`, `expired` or `revoked`.
    var state: String
    var key: String?

    init(_ key: APIKey, secret: String? = nil, now: Date = Date()) {
        id = String(key.id)
        prefix = key.prefix
        role = key.role.rawValue
        app = key.bundleID
        apps = key.appScope
        name = key.name
        createdAt = key.createdAt
        lastUsedAt = key.lastUsedAt
        expiresAt = key.expiresAt
        revokedAt = key.revokedAt
        state = key.revokedAt != nil ? "revoked" : (key.expiresAt.map { $0 <= now } ?? false) ? "expired" : "active"
        self.key = secret
    }
}

struct KeyListResponse: ResponseEncodable {
    var keys: [KeyResponse]
}
