import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// iOS 18 broadcast channels (docs/live-activities.md "Broadcast channels"):
/// - `/v1/apps/{bundleID}/channels[/{channelID}]`: the channels Herald made through APNs's
///   channel management API, each in one environment and optionally bound to an activity,
///   whose updates then go to it as one broadcast;
/// - `/v1/apps/{bundleID}/apns-channels`: what APNs itself holds, against Herald's record.
///
/// A channel ID is base64; in a path it may be percent-encoded or written in the URL-safe
/// alphabet (`-` for `+`, `_` for `/`).
struct ChannelController {
    static let maximumPageSize = 200

    /// `POST …/channels`: the environment (the app's default without), whether APNs keeps the
    /// latest message for devices offline, and the activity whose updates the channel carries.
    struct CreateBody: Decodable {
        var environment: APNSEnvironment?
        var storagePolicy: StoragePolicyBody?
        var activityID: String?
    }

    struct StoragePolicyBody: Decodable {
        var policy: ChannelStoragePolicy

        init(from decoder: any Decoder) throws {
            guard case .int(let number) = try decoder.singleValueContainer().decode(PayloadValue.self),
                let policy = ChannelStoragePolicy(rawValue: number)
            else {
                throw DecodingError.invalid("must be 0 (no message kept) or 1 (the latest kept for devices offline)", in: decoder)
            }
            self.policy = policy
        }
    }

    /// `GET …/channels`: filters by state and activity, paged newest first.
    struct ListQuery: Decodable {
        var state: BroadcastChannel.State?
        var activityID: String?
        var cursor: String?
        var limit: Int?
    }

    /// `GET …/apns-channels`: which environment's channels to ask APNs for.
    struct RemoteQuery: Decodable {
        var environment: APNSEnvironment?
    }

    let directory: AppDirectory
    let channels: any BroadcastChannelRepository
    let manager: any ChannelManaging

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get("channels", use: list)
        group.post("channels", use: create)
        group.get("channels/:channelID", use: show)
        group.delete("channels/:channelID", use: delete)
        group.get("apns-channels", use: remote)
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<ChannelResponse> {
        let app = try await self.app(context)
        if app.disabledAt != nil { throw Problem.appDisabled(app.bundleID) }
        let body = try await RequestDecoding.body(CreateBody.self, of: request, context: context)
        let environment = body.environment ?? app.defaultEnvironment
        let policy = body.storagePolicy?.policy ?? .mostRecent
        let activityID = try body.activityID.map(LiveActivityInput.activityID)
        let principal = try context.requirePrincipal()
        let channel = try await manager.create(
            app: app, environment: environment, storagePolicy: policy, activityID: activityID, actor: principal.keyPrefix)
        return EditedResponse(status: .created, response: ChannelResponse(channel))
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> ChannelPageResponse {
        let app = try await self.app(context)
        let query = try RequestDecoding.query(ListQuery.self, of: request)
        let state = query.state
        let activityID = try query.activityID.map(LiveActivityInput.activityID)
        let cursor = try PageQuery.newestFirstCursor(query.cursor) { BroadcastChannelID($0) != nil }
        let limit = try PageQuery.limit(query.limit, maximum: Self.maximumPageSize, fallback: 50)
        let page = try await channels.channels(appID: app.id, state: state, activityID: activityID, cursor: cursor, limit: limit)
        return ChannelPageResponse(channels: page.channels.map(ChannelResponse.init), nextCursor: page.nextCursor)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> ChannelResponse {
        let app = try await self.app(context)
        return ChannelResponse(try await requireChannel(app, context))
    }

    /// Deletes the channel at APNs and marks it deleted (gone when APNs no longer knew it);
    /// a channel no longer active is answered as it is.
    @Sendable func delete(request: Request, context: HeraldRequestContext) async throws -> ChannelResponse {
        let app = try await self.app(context)
        let channel = try await requireChannel(app, context)
        let principal = try context.requirePrincipal()
        return ChannelResponse(try await manager.delete(app: app, channel: channel, actor: principal.keyPrefix))
    }

    @Sendable func remote(request: Request, context: HeraldRequestContext) async throws -> RemoteChannelsResponse {
        let app = try await self.app(context)
        let environment = try RequestDecoding.query(RemoteQuery.self, of: request).environment ?? app.defaultEnvironment
        let ids: [BroadcastChannelID]
        ids = try await manager.remoteChannels(app: app, environment: environment)
        var entries = [RemoteChannelsResponse.Entry]()
        for id in ids {
            let known = try await channels.channel(appID: app.id, channelID: id)
            entries.append(.init(channelID: id.value, known: known != nil, activityID: known?.activityID))
        }
        return RemoteChannelsResponse(environment: environment.rawValue, channels: entries)
    }

    // MARK: Lookups

    private func app(_ context: HeraldRequestContext) async throws -> App {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireSendAccess(bundleID: bundleID)
        return try await directory.require(bundleID: bundleID)
    }

    private func requireChannel(_ app: App, _ context: HeraldRequestContext) async throws -> BroadcastChannel {
        let raw = try context.parameters.require("channelID")
        guard let id = Self.channelID(fromPath: raw) else {
            throw Problem.invalidField("channelID", "must be a broadcast channel ID (base64)")
        }
        guard let channel = try await channels.channel(appID: app.id, channelID: id) else {
            throw Problem(
                status: .notFound, slug: "unknown-channel", title: "Unknown channel",
                detail: "Herald made no channel with this ID for this app", field: "channelID")
        }
        return channel
    }

    /// A channel ID from a path segment: percent-encoded base64, or the URL-safe alphabet.
    static func channelID(fromPath raw: String) -> BroadcastChannelID? {
        let decoded = raw.removingPercentEncoding ?? raw
        return BroadcastChannelID(decoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
    }
}

struct ChannelResponse: ResponseEncodable {
    var channelID: String
    /// The channel ID in the URL-safe alphabet, for paths.
    var pathID: String
    var environment: String
    var storagePolicy: Int
    var activityID: String?
    var state: String
    var createdBy: String
    var createdAt: Date
    var endedAt: Date?
    var lastBroadcastAt: Date?
    var broadcasts: Int

    init(_ channel: BroadcastChannel) {
        channelID = channel.channelID.value
        pathID = channel.channelID.value.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        environment = channel.environment.rawValue
        storagePolicy = channel.storagePolicy.rawValue
        activityID = channel.activityID
        state = channel.state.rawValue
        createdBy = channel.createdBy
        createdAt = channel.createdAt
        endedAt = channel.endedAt
        lastBroadcastAt = channel.lastBroadcastAt
        broadcasts = channel.broadcasts
    }
}

struct ChannelPageResponse: ResponseEncodable {
    var channels: [ChannelResponse]
    var nextCursor: String?
}

struct RemoteChannelsResponse: ResponseEncodable {
    struct Entry: Codable {
        var channelID: String
        /// Herald made it (and keeps its record).
        var known: Bool
        var activityID: String?
    }

    var environment: String
    var channels: [Entry]
}
