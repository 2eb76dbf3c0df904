import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// The ledgers read back, and a user's data requests:
/// - `GET /v1/apps/{bundleID}/notifications`: the transactional ledger by user, token, request
///   and time, newest first, keyset-paged;
/// - `GET /v1/apps/{bundleID}/devices/{token}/history`: a token's registration, invalidation,
///   latest notifications and what the latest campaigns did with it;
/// - `GET /v1/apps/{bundleID}/users/{userID}/export` and `DELETE /v1/apps/{bundleID}/users/{userID}`:
///   everything Herald holds about a user, as JSON; and its erasure.
///
/// Tokens appear only as their last 8 hex digits, here as everywhere.
struct LedgerController {
    let directory: AppDirectory
    let ledger: any LedgerRepository

    func addNotificationRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: notifications)
    }

    func addDeviceRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(":token/history", use: history)
    }

    func addUserRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(":userID/export", use: export)
        group.delete(":userID", use: erase)
    }

    /// `GET …/notifications`: filters by user, token, request and time, and keyset paging.
    struct NotificationsQuery: Decodable {
        var userID: String?
        var token: String?
        var requestID: String?
        var since: Date?
        var cursor: Int64?
        var limit: Int?
    }

    @Sendable func notifications(request: Request, context: HeraldRequestContext) async throws -> NotificationPageResponse {
        let app = try await self.app(context, access: .read)
        let given = try RequestDecoding.query(NotificationsQuery.self, of: request)
        var query = NotificationQuery()
        query.userID = try given.userID.map { try Self.userID($0, field: "userID") }
        if let hex = given.token {
            do {
                query.token = try DeviceToken(hex: hex)
            } catch {
                throw Problem.invalidField("token", "must be 8 to 200 hex digits, an even number of them")
            }
        }
        if let text = given.requestID {
            guard let id = UUID(uuidString: text) else { throw Problem.invalidField("requestID", "must be a UUID") }
            query.requestID = id
        }
        query.since = given.since
        query.cursor = try PageQuery.cursor(given.cursor)
        query.limit = try PageQuery.limit(given.limit, maximum: NotificationQuery.maximumLimit, fallback: query.limit)
        let page = try await ledger.notifications(appID: app.id, query: query)
        return NotificationPageResponse(
            notifications: page.records.map(NotificationRecordResponse.init), nextCursor: page.nextCursor.map(String.init))
    }

    @Sendable func history(request: Request, context: HeraldRequestContext) async throws -> DeviceHistoryResponse {
        let app = try await self.app(context, access: .read)
        try RequestDecoding.noQuery(request)
        let token: DeviceToken
        token = try DeviceToken(hex: try context.parameters.require("token"))
        let history = try await ledger.history(appID: app.id, token: token)
        guard history.device != nil || !history.notifications.isEmpty else {
            throw Problem.notFound("Herald has neither a registration of nor a notification to this token")
        }
        return DeviceHistoryResponse(history)
    }

    /// Streamed a page at a time: a user with any number of devices is exported whole.
    @Sendable func export(request: Request, context: HeraldRequestContext) async throws -> Response {
        let app = try await userApp(context)
        try RequestDecoding.noQuery(request)
        let userID = try Self.userID(try context.parameters.require("userID"), field: "userID")
        guard try await ledger.holdsUser(appID: app.id, userID: userID) else { throw Self.unknownUser() }
        let writer = UserDataExportWriter(ledger: ledger)
        let body = ResponseBody { output in
            try await writer.write(appID: app.id, bundleID: app.bundleID, userID: userID) { text in
                try await output.write(ByteBuffer(string: text))
            }
            try await output.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
    }

    @Sendable func erase(request: Request, context: HeraldRequestContext) async throws -> UserErasureResponse {
        let app = try await userApp(context)
        let userID = try Self.userID(try context.parameters.require("userID"), field: "userID")
        let erasure = try await ledger.erase(appID: app.id, userID: userID, actor: try context.requirePrincipal().keyPrefix)
        guard !erasure.isEmpty else { throw Self.unknownUser() }
        return UserErasureResponse(
            devicesDeleted: erasure.devicesDeleted, notificationsAnonymised: erasure.notificationsAnonymised,
            eventsAnonymised: erasure.eventsAnonymised, webhookMessagesRedacted: erasure.webhookMessagesRedacted,
            campaignAudiencesRedacted: erasure.campaignAudiencesRedacted)
    }

    private func app(_ context: HeraldRequestContext, access: Principal.DeviceAccess) async throws -> App {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireDeviceAccess(access, bundleID: bundleID)
        return try await directory.require(bundleID: bundleID)
    }

    /// Data requests come from the app's backend (its own key) or an admin.
    private func userApp(_ context: HeraldRequestContext) async throws -> App {
        let bundleID = try context.parameters.require("bundleID")
        let principal = try context.requirePrincipal()
        guard principal.role == .admin || (principal.role == .app && principal.appBundleID == bundleID) else {
            throw Problem.forbidden("a user's data is for the app's own key or an admin key")
        }
        return try await directory.require(bundleID: bundleID)
    }

    static func userID(_ text: String, field: String) throws -> String {
        guard DeviceRegistration.isValidUserID(text) else { throw Problem.invalidField(field, DeviceRegistration.userIDRule) }
        return text
    }

    static func unknownUser() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-user", title: "Unknown user",
            detail: "Herald holds no device or event of this user for this app", field: "userID")
    }
}

struct NotificationRecordResponse: Encodable {
    var id: String
    var requestID: String
    var tokenSuffix: String
    var deviceID: Int64?
    var outcome: String
    var status: Int?
    var reason: String?
    var apnsID: String?
    var language: String?
    var actor: String
    var createdAt: Date

    init(_ record: NotificationRecord) {
        id = String(record.id)
        requestID = record.requestID.canonicalString
        tokenSuffix = String(record.token.hex.suffix(8))
        deviceID = record.deviceID
        outcome = record.outcome.rawValue
        status = record.status
        reason = record.reason
        apnsID = record.apnsID?.canonicalString
        language = record.language
        actor = record.actor
        createdAt = record.createdAt
    }
}

struct NotificationPageResponse: ResponseEncodable {
    var notifications: [NotificationRecordResponse]
    var nextCursor: String?
}

struct CampaignDeliveryResponse: Encodable {
    var campaignID: String
    var campaignName: String
    var deviceID: Int64
    var outcome: String
    var status: Int?
    var reason: String?
    var apnsID: String?
    var language: String?
    var recordedAt: Date

    init(_ record: CampaignDeliveryRecord) {
        campaignID = record.campaignID.canonicalString
        campaignName = record.campaignName
        deviceID = record.deviceID
        outcome = record.outcome.rawValue
        status = record.status
        reason = record.reason
        apnsID = record.apnsID?.canonicalString
        language = record.language
        recordedAt = record.recordedAt
    }
}

struct DeviceHistoryResponse: ResponseEncodable {
    /// Absent once the token was deleted or pruned.
    var device: DeviceResponse?
    var notifications: [NotificationRecordResponse]
    var campaigns: [CampaignDeliveryResponse]

    init(_ history: DeviceHistory) {
        device = history.device.map(DeviceResponse.init)
        notifications = history.notifications.map(NotificationRecordResponse.init)
        campaigns = history.campaigns.map(CampaignDeliveryResponse.init)
    }
}

struct UserErasureResponse: ResponseEncodable {
    var devicesDeleted: Int
    var notificationsAnonymised: Int
    var eventsAnonymised: Int
    var webhookMessagesRedacted: Int
    var campaignAudiencesRedacted: Int
}
