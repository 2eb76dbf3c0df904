import APNSCore
import Foundation

/// One row of the transactional ledger (`notifications`): one recipient of one send request.
public struct NotificationRecord: Sendable, Equatable {
    public var id: Int64
    public var requestID: UUID
    public var token: DeviceToken
    /// The registered device, when the token was registered at the time.
    public var deviceID: Int64?
    public var outcome: DeliveryOutcome.Kind
    public var status: Int?
    public var reason: String?
    public var apnsID: UUID?
    public var language: String?
    public var actor: String
    public var createdAt: Date

    public init(
        id: Int64, requestID: UUID, token: DeviceToken, deviceID: Int64?, outcome: DeliveryOutcome.Kind, status: Int?,
        reason: String?, apnsID: UUID?, language: String?, actor: String, createdAt: Date
    ) {
        self.id = id
        self.requestID = requestID
        self.token = token
        self.deviceID = deviceID
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.language = language
        self.actor = actor
        self.createdAt = createdAt
    }
}

/// Which transactional ledger rows to read, newest first.
public struct NotificationQuery: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maximumLimit = 1000

    /// Rows of the user's devices (as registered now).
    public var userID: String?
    public var token: DeviceToken?
    public var requestID: UUID?
    public var since: Date?
    /// The last ID of the previous page.
    public var cursor: Int64?
    public var limit: Int

    public init(
        userID: String? = nil, token: DeviceToken? = nil, requestID: UUID? = nil, since: Date? = nil, cursor: Int64? = nil,
        limit: Int = Self.defaultLimit
    ) {
        self.userID = userID
        self.token = token
        self.requestID = requestID
        self.since = since
        self.cursor = cursor
        self.limit = limit
    }
}

public struct NotificationPage: Sendable {
    public var records: [NotificationRecord]
    public var nextCursor: Int64?

    public init(records: [NotificationRecord], nextCursor: Int64?) {
        self.records = records
        self.nextCursor = nextCursor
    }
}

/// What one campaign did with one device.
public struct CampaignDeliveryRecord: Sendable, Equatable {
    public var campaignID: UUID
    public var campaignName: String
    public var deviceID: Int64
    public var outcome: DeliveryOutcome.Kind
    public var status: Int?
    public var reason: String?
    public var apnsID: UUID?
    public var language: String?
    public var recordedAt: Date

    public init(
        campaignID: UUID, campaignName: String, deviceID: Int64, outcome: DeliveryOutcome.Kind, status: Int?, reason: String?,
        apnsID: UUID?, language: String?, recordedAt: Date
    ) {
        self.campaignID = campaignID
        self.campaignName = campaignName
        self.deviceID = deviceID
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.language = language
        self.recordedAt = recordedAt
    }
}

/// A token's story: its registration as it is now (nil once deleted or pruned), the latest
/// transactional notifications to it and what the app's latest campaigns did with it.
public struct DeviceHistory: Sendable {
    public static let notificationLimit = 20
    /// Campaigns looked at, newest first: each is one primary-key probe.
    public static let campaignLimit = 50

    public var device: Device?
    public var notifications: [NotificationRecord]
    public var campaigns: [CampaignDeliveryRecord]

    public init(device: Device?, notifications: [NotificationRecord], campaigns: [CampaignDeliveryRecord]) {
        self.device = device
        self.notifications = notifications
        self.campaigns = campaigns
    }
}

/// Everything Herald holds about one user of one app.
public struct UserDataExport: Sendable {
    /// Rows of each kind at most; `truncated` says when there were more.
    public static let rowLimit = 10_000

    public var userID: String
    public var devices: [Device]
    public var notifications: [NotificationRecord]
    public var campaigns: [CampaignDeliveryRecord]
    public var events: [AppEventRecord]
    public var truncated: Bool

    public init(
        userID: String, devices: [Device], notifications: [NotificationRecord], campaigns: [CampaignDeliveryRecord],
        events: [AppEventRecord], truncated: Bool
    ) {
        self.userID = userID
        self.devices = devices
        self.notifications = notifications
        self.campaigns = campaigns
        self.events = events
        self.truncated = truncated
    }
}

/// An open or conversion as stored.
public struct AppEventRecord: Sendable, Equatable {
    public var kind: String
    public var occurredAt: Date
    public var apnsID: UUID?
    public var name: String?
    public var value: Double?
    public var campaignID: UUID?

    public init(kind: String, occurredAt: Date, apnsID: UUID?, name: String?, value: Double?, campaignID: UUID?) {
        self.kind = kind
        self.occurredAt = occurredAt
        self.apnsID = apnsID
        self.name = name
        self.value = value
        self.campaignID = campaignID
    }
}

/// What erasing a user did.
public struct UserErasure: Sendable, Equatable {
    public var devicesDeleted: Int
    public var notificationsAnonymised: Int
    public var eventsAnonymised: Int

    public init(devicesDeleted: Int, notificationsAnonymised: Int, eventsAnonymised: Int) {
        self.devicesDeleted = devicesDeleted
        self.notificationsAnonymised = notificationsAnonymised
        self.eventsAnonymised = eventsAnonymised
    }
}

/// Reading the ledgers back, and a user's data requests.
public protocol LedgerRepository: Sendable {
    func notifications(appID: Int64, query: NotificationQuery) async throws -> NotificationPage
    func history(appID: Int64, token: DeviceToken) async throws -> DeviceHistory
    func export(appID: Int64, userID: String) async throws -> UserDataExport
    /// Deletes the user's devices and anonymises what the ledgers and events hold of them, in
    /// one transaction, audited (with a digest of the user ID, not the ID).
    func erase(appID: Int64, userID: String, actor: String) async throws -> UserErasure
}
