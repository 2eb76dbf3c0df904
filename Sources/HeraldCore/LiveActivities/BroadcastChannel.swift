import APNSCore
import Foundation

/// An iOS 18 broadcast channel Herald created through APNs's channel management API
/// (docs/live-activities.md "Broadcast channels"). It belongs to one environment; bound to an
/// activity, that activity's updates go to it as one broadcast.
public struct BroadcastChannel: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Broadcasts go to it.
        case active
        /// Deleted through Herald (and at APNs).
        case deleted
        /// APNs answered ChannelNotRegistered: it no longer exists there.
        case gone
    }

    public var appID: Int64
    public var channelID: BroadcastChannelID
    public var environment: APNSEnvironment
    public var storagePolicy: ChannelStoragePolicy
    /// The activity whose updates it carries, if bound.
    public var activityID: String?
    public var state: State
    public var createdBy: String
    public var createdAt: Date
    /// When it was deleted or found gone.
    public var endedAt: Date?
    public var lastBroadcastAt: Date?
    /// Broadcasts APNs accepted.
    public var broadcasts: Int

    public init(
        appID: Int64, channelID: BroadcastChannelID, environment: APNSEnvironment, storagePolicy: ChannelStoragePolicy,
        activityID: String?, state: State, createdBy: String, createdAt: Date, endedAt: Date? = nil,
        lastBroadcastAt: Date? = nil, broadcasts: Int = 0
    ) {
        self.appID = appID
        self.channelID = channelID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.activityID = activityID
        self.state = state
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.lastBroadcastAt = lastBroadcastAt
        self.broadcasts = broadcasts
    }
}

/// How storing a new channel went.
public enum ChannelBinding: Sendable, Equatable {
    case stored(BroadcastChannel)
    /// The activity already has an active channel in that environment.
    case activityHasChannel(BroadcastChannelID)
    /// The activity has ended: it takes no new channel.
    case activityEnded
}

/// What APNs answered one broadcast of an update.
public struct BroadcastRecord: Sendable, Equatable {
    public var channelID: BroadcastChannelID
    public var environment: APNSEnvironment
    public var outcome: Outcome
    public var status: Int?
    public var reason: String?
    public var requestID: UUID?
    public var recordedAt: Date

    public enum Outcome: String, Sendable, Codable {
        case accepted
        case failed
    }

    public init(
        channelID: BroadcastChannelID, environment: APNSEnvironment, outcome: Outcome, status: Int?, reason: String?,
        requestID: UUID?, recordedAt: Date = Date()
    ) {
        self.channelID = channelID
        self.environment = environment
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.requestID = requestID
        self.recordedAt = recordedAt
    }
}

/// A page of channels, newest first.
public struct BroadcastChannelPage: Sendable, Equatable {
    public var channels: [BroadcastChannel]
    public var nextCursor: String?

    public init(channels: [BroadcastChannel], nextCursor: String?) {
        self.channels = channels
        self.nextCursor = nextCursor
    }
}

/// The channels Herald made, and the broadcasts of each update.
public protocol BroadcastChannelRepository: Sendable {
    /// The activity's active channel in `environment`, if it has one (checked before APNs is
    /// asked for a channel, so that none is made for nothing).
    func activeChannel(appID: Int64, activityID: String, environment: APNSEnvironment) async throws -> BroadcastChannel?
    /// Stores a channel APNs just created, binding it to `activityID` (created when new).
    func insert(
        appID: Int64, channelID: BroadcastChannelID, environment: APNSEnvironment, storagePolicy: ChannelStoragePolicy,
        activityID: String?, actor: String, now: Date
    ) async throws -> ChannelBinding
    func channel(appID: Int64, channelID: BroadcastChannelID) async throws -> BroadcastChannel?
    /// Newest first; `activityID` narrows to one activity's.
    func channels(
        appID: Int64, state: BroadcastChannel.State?, activityID: String?, cursor: String?, limit: Int
    ) async throws
        -> BroadcastChannelPage
    /// Marks an active channel deleted or gone (audited); nil when it is unknown.
    func end(
        appID: Int64, channelID: BroadcastChannelID, as state: BroadcastChannel.State, reason: String?, actor: String
    )
        async throws -> BroadcastChannel?
    /// The active channels an update of the activity goes to.
    func activeChannels(appID: Int64, activityID: String) async throws -> [BroadcastChannel]
    /// The broadcasts of an update recorded so far.
    func broadcasts(updateID: Int64) async throws -> [BroadcastRecord]
    /// Records what APNs answered a broadcast of an update, once per channel, while the lease
    /// holds; a ChannelNotRegistered answer marks the channel gone. False when the lease was lost.
    func record(_ broadcast: BroadcastRecord, lease: LiveActivityLease) async throws -> Bool
}

/// Makes and removes channels at APNs and keeps Herald's record in step (docs/live-activities.md
/// "Broadcast channels").
public protocol ChannelManaging: Sendable {
    func create(
        app: App, environment: APNSEnvironment, storagePolicy: ChannelStoragePolicy, activityID: String?, actor: String
    ) async throws -> BroadcastChannel
    /// Deletes it at APNs (a channel APNs no longer knows counts as deleted) and marks it deleted.
    func delete(app: App, channel: BroadcastChannel, actor: String) async throws -> BroadcastChannel
    /// The channel IDs APNs holds for the app in `environment`.
    func remoteChannels(app: App, environment: APNSEnvironment) async throws -> [BroadcastChannelID]
}

/// Why a channel could not be made or removed.
public struct ChannelManagementError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The activity already has an active channel in the environment.
        case activityHasChannel(BroadcastChannelID)
        case activityEnded
        /// APNs refused the request: its status and reason.
        case refused(status: Int, reason: String)
        /// No answer from APNs (connection, deadline, credentials unusable).
        case unavailable
    }

    public var kind: Kind
    /// One line, without tokens or keys.
    public var detail: String

    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
