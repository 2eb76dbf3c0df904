import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// Live Activities (docs/live-activities.md):
/// - `/v1/apps/{bundleID}/devices/{token}/start-tokens[/{attributesType}]`: a device's
///   push-to-start tokens, one per `ActivityAttributes` type;
/// - `/v1/apps/{bundleID}/live-activities[/{activityID}]`: activities, the update tokens their
///   devices registered under the caller's activity ID, and the updates sent to them.
struct LiveActivityController {
    static let maximumPageSize = 200

    let directory: AppDirectory
    let activities: any LiveActivityRepository
    let updater: any LiveActivityUpdating
    /// The broadcasts of an update, shown with it.
    var channels: (any BroadcastChannelRepository)?

    func addStartTokenRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(":token/start-tokens", use: listStartTokens)
        group.put(":token/start-tokens/:attributesType", use: registerStartToken)
        group.delete(":token/start-tokens/:attributesType", use: removeStartToken)
        group.put(":token/update-tokens/:attributesType", use: registerStartedUpdateToken)
    }

    func addActivityRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.get(":activityID", use: show)
        group.put(":activityID/tokens/:token", use: registerUpdateToken)
        group.delete(":activityID/tokens/:token", use: removeUpdateToken)
        group.post(":activityID/updates", use: submit)
        group.get(":activityID/updates", use: listUpdates)
        group.get(":activityID/updates/:updateID", use: showUpdate)
        group.get(":activityID/updates/:updateID/deliveries", use: deliveries)
    }

    // MARK: Start tokens

    @Sendable func registerStartToken(request: Request, context: HeraldRequestContext) async throws -> StartTokenResponse {
        let (app, device) = try await target(context, access: .write)
        let type = try Self.attributesType(context)
        let token = try await RequestDecoding.body(LiveActivityInput.TokenBody.self, of: request, context: context).deviceToken
        guard try await activities.registerStartToken(appID: app.id, device: device, attributesType: type, token: token) else {
            throw Problem.notFound("this device token is not registered for this app: register the device first")
        }
        return StartTokenResponse(attributesType: type, tokenSuffix: String(token.hex.suffix(8)), registeredAt: Date())
    }

    @Sendable func removeStartToken(request: Request, context: HeraldRequestContext) async throws -> Response {
        let (app, device) = try await target(context, access: .write)
        let type = try Self.attributesType(context)
        guard try await activities.removeStartToken(appID: app.id, device: device, attributesType: type) else {
            throw Problem.notFound("this device has no start token for \(type)")
        }
        return Response(status: .noContent)
    }

    @Sendable func listStartTokens(request: Request, context: HeraldRequestContext) async throws -> StartTokenListResponse {
        let (app, device) = try await target(context, access: .read)
        let tokens = try await activities.startTokens(appID: app.id, device: device)
        return StartTokenListResponse(
            startTokens: tokens.map {
                StartTokenResponse(attributesType: $0.attributesType, tokenSuffix: $0.tokenSuffix, registeredAt: $0.registeredAt)
            })
    }

    // MARK: Activities and update tokens

    @Sendable func registerUpdateToken(
        request: Request, context: HeraldRequestContext
    ) async throws
        -> EditedResponse<UpdateTokenResponse>
    {
        let (app, device) = try await target(context, access: .write)
        let activityID = try Self.activityID(context)
        let token = try await RequestDecoding.body(LiveActivityInput.TokenBody.self, of: request, context: context).deviceToken
        switch try await activities.registerUpdateToken(
            appID: app.id, activityID: activityID, device: device, token: token, now: Date())
        {
        case .stored(let created):
            return EditedResponse(
                status: created ? .created : .ok,
                response: UpdateTokenResponse(activityID: activityID, tokenSuffix: String(token.hex.suffix(8)), created: created))
        case .unknownDevice, .noStartedActivity:
            throw Problem.notFound("this device token is not registered for this app: register the device first")
        case .activityEnded:
            throw Problem.activityEnded(activityID)
        }
    }

    /// The update token of an activity a start campaign started on the device: it joins the
    /// campaign's activity, whose ID the app need not know.
    @Sendable func registerStartedUpdateToken(
        request: Request, context: HeraldRequestContext
    ) async throws
        -> EditedResponse<UpdateTokenResponse>
    {
        let (app, device) = try await target(context, access: .write)
        let type = try Self.attributesType(context)
        let token = try await RequestDecoding.body(LiveActivityInput.TokenBody.self, of: request, context: context).deviceToken
        let (outcome, activityID) = try await activities.registerUpdateToken(
            appID: app.id, device: device, attributesType: type, token: token, now: Date())
        switch outcome {
        case .stored(let created):
            return EditedResponse(
                status: created ? .created : .ok,
                response: UpdateTokenResponse(
                    activityID: activityID ?? "", tokenSuffix: String(token.hex.suffix(8)), created: created))
        case .unknownDevice:
            throw Problem.notFound("this device token is not registered for this app: register the device first")
        case .noStartedActivity:
            throw Problem(
                status: .notFound, slug: "no-started-activity", title: "No started activity",
                detail: "no campaign started an activity of this type on this device: register the token under its activity ID",
                field: "attributesType")
        case .activityEnded:
            throw Problem.activityEnded(activityID ?? "")
        }
    }

    @Sendable func removeUpdateToken(request: Request, context: HeraldRequestContext) async throws -> Response {
        let (app, device) = try await target(context, access: .write)
        let activityID = try Self.activityID(context)
        guard try await activities.removeUpdateToken(appID: app.id, activityID: activityID, device: device) else {
            throw Problem.notFound("this device has no update token for this activity")
        }
        return Response(status: .noContent)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> LiveActivityPageResponse {
        let app = try await self.app(context, access: .read)
        let query = try RequestDecoding.query(StatePageQuery<LiveActivity.State>.self, of: request)
        let cursor = try PageQuery.newestFirstCursor(query.cursor) { LiveActivityRules.activityIDProblem($0) == nil }
        let limit = try PageQuery.limit(query.limit, maximum: Self.maximumPageSize, fallback: 50)
        let page = try await activities.activities(appID: app.id, state: query.state, cursor: cursor, limit: limit, now: Date())
        return LiveActivityPageResponse(activities: page.activities.map(LiveActivityResponse.init), nextCursor: page.nextCursor)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> LiveActivityResponse {
        let app = try await self.app(context, access: .read)
        return LiveActivityResponse(try await requireActivity(app, try Self.activityID(context)))
    }

    // MARK: Updates

    @Sendable func submit(
        request: Request, context: HeraldRequestContext
    ) async throws
        -> EditedResponse<LiveActivityUpdateResponse>
    {
        let app = try await self.app(context, access: .write)
        if app.disabledAt != nil { throw Problem.appDisabled(app.bundleID) }
        let activityID = try Self.activityID(context)
        let input = try await RequestDecoding.body(LiveActivityInput.UpdateBody.self, of: request, context: context).request
        let principal = try context.requirePrincipal()
        // Its allowance as it is now.
        let current = try await directory.current(app)
        switch try await updater.submit(app: current, activityID: activityID, request: input, actor: principal.keyPrefix) {
        case .queued(let update):
            return EditedResponse(status: .accepted, response: LiveActivityUpdateResponse(update))
        case .repeated(let update):
            return EditedResponse(status: .ok, response: LiveActivityUpdateResponse(update))
        case .unknownActivity:
            throw Problem.unknownActivity()
        case .ended:
            throw Problem.activityEnded(activityID)
        }
    }

    @Sendable func listUpdates(request: Request, context: HeraldRequestContext) async throws -> LiveActivityUpdateListResponse {
        let app = try await self.app(context, access: .read)
        let activityID = try Self.activityID(context)
        let query = try RequestDecoding.query(KeysetQuery.self, of: request)
        let before = try PageQuery.cursor(query.cursor)
        let limit = try PageQuery.limit(query.limit, maximum: Self.maximumPageSize, fallback: 50)
        _ = try await requireActivity(app, activityID)
        let updates = try await activities.updates(appID: app.id, activityID: activityID, beforeID: before, limit: limit)
        return LiveActivityUpdateListResponse(
            updates: updates.map(LiveActivityUpdateResponse.init),
            nextCursor: updates.count == limit ? updates.last.map { String($0.id) } : nil)
    }

    @Sendable func showUpdate(request: Request, context: HeraldRequestContext) async throws -> LiveActivityUpdateResponse {
        let app = try await self.app(context, access: .read)
        let update = try await requireUpdate(app, context)
        var response = LiveActivityUpdateResponse(update)
        if let channels {
            response.broadcasts = try await channels.broadcasts(updateID: update.id).map(BroadcastResponse.init)
        }
        return response
    }

    @Sendable func deliveries(request: Request, context: HeraldRequestContext) async throws -> LiveActivityDeliveryPageResponse {
        let app = try await self.app(context, access: .read)
        let query = try RequestDecoding.query(KeysetQuery.self, of: request)
        let after = try PageQuery.cursor(query.cursor)
        let limit = try PageQuery.limit(query.limit, maximum: 1000, fallback: 100)
        let update = try await requireUpdate(app, context)
        let rows = try await activities.deliveries(updateID: update.id, afterTokenID: after, limit: limit)
        return LiveActivityDeliveryPageResponse(
            deliveries: rows.map(LiveActivityDeliveryResponse.init),
            nextCursor: rows.count == limit ? rows.last.map { String($0.tokenID) } : nil)
    }

    // MARK: Lookups

    private func app(_ context: HeraldRequestContext, access: Principal.DeviceAccess) async throws -> App {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireDeviceAccess(access, bundleID: bundleID)
        return try await directory.require(bundleID: bundleID)
    }

    private func target(_ context: HeraldRequestContext, access: Principal.DeviceAccess) async throws -> (App, DeviceToken) {
        let app = try await app(context, access: access)
        return (app, try DeviceToken(hex: try context.parameters.require("token")))
    }

    private func requireActivity(_ app: App, _ activityID: String) async throws -> LiveActivity {
        guard let activity = try await activities.activity(appID: app.id, activityID: activityID, now: Date()) else {
            throw Problem.unknownActivity()
        }
        return activity
    }

    private func requireUpdate(_ app: App, _ context: HeraldRequestContext) async throws -> LiveActivityUpdate {
        let activityID = try Self.activityID(context)
        guard let id = Int64(try context.parameters.require("updateID")), id > 0,
            let update = try await activities.update(appID: app.id, activityID: activityID, updateID: id)
        else {
            throw Problem(
                status: .notFound, slug: "unknown-update", title: "Unknown update",
                detail: "this activity has no update with this ID", field: "updateID")
        }
        return update
    }

    static func activityID(_ context: HeraldRequestContext) throws -> String {
        let raw = try context.parameters.require("activityID")
        return try LiveActivityInput.activityID(raw.removingPercentEncoding ?? raw)
    }

    static func attributesType(_ context: HeraldRequestContext) throws -> String {
        let type = try context.parameters.require("attributesType")
        if let problem = LiveActivityRules.attributesTypeProblem(type) { throw Problem.invalidField("attributesType", problem) }
        return type
    }
}

extension Problem {
    static func unknownActivity() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-activity", title: "Unknown activity",
            detail: "no update token was registered under this activity ID", field: "activityID")
    }

    static func activityEnded(_ activityID: String) -> Problem {
        Problem(
            status: .conflict, slug: "activity-ended", title: "The activity has ended",
            detail: "an end was sent to this activity: it takes no more updates or tokens", field: "activityID")
    }
}
