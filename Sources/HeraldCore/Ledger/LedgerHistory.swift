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

/// One page of a user's data of one kind, and where the next page starts (nil: the last).
/// A user's export is read page by page and streamed, so a user with any number of devices
/// is exported whole in bounded memory.
public struct UserDataPage<Record: Sendable>: Sendable {
    public var records: [Record]
    public var next: UserDataCursor?

    public init(records: [Record], next: UserDataCursor?) {
        self.records = records
        self.next = next
    }
}

/// Where a page of a user's data starts: after the row at (`major`, `minor`) in the list's
/// order (IDs; for campaign deliveries, the campaign's and the device's).
public struct UserDataCursor: Sendable, Equatable {
    public var major: Int64
    public var minor: Int64

    public init(major: Int64, minor: Int64 = 0) {
        self.major = major
        self.minor = minor
    }
}

/// A webhook message about a user, still in the outbox: what it says and whether it went out.
public struct UserWebhookMessage: Sendable, Equatable {
    public var messageID: UUID
    public var endpointID: Int64
    public var type: String
    public var state: String
    public var occurredAt: Date
    /// The message's data as stored, JSON.
    public var data: PayloadValue

    public init(messageID: UUID, endpointID: Int64, type: String, state: String, occurredAt: Date, data: PayloadValue) {
        self.messageID = messageID
        self.endpointID = endpointID
        self.type = type
        self.state = state
        self.occurredAt = occurredAt
        self.data = data
    }
}

/// A campaign whose audience names the user among its `userIDs`.
public struct UserCampaignAudience: Sendable, Equatable {
    public var campaignID: UUID
    public var name: String
    public var state: String

    public init(campaignID: UUID, name: String, state: String) {
        self.campaignID = campaignID
        self.name = name
        self.state = state
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
    /// A custom event's properties.
    public var properties: [String: PayloadValue]?

    public init(
        kind: String, occurredAt: Date, apnsID: UUID?, name: String?, value: Double?, campaignID: UUID?,
        properties: [String: PayloadValue]? = nil
    ) {
        self.kind = kind
        self.occurredAt = occurredAt
        self.apnsID = apnsID
        self.name = name
        self.value = value
        self.campaignID = campaignID
        self.properties = properties
    }
}

/// What erasing a user did.
public struct UserErasure: Sendable, Equatable {
    public var devicesDeleted: Int
    public var notificationsAnonymised: Int
    public var eventsAnonymised: Int
    /// Webhook messages about the user that lost the token and user ID.
    public var webhookMessagesRedacted: Int
    /// Campaigns whose audience named the user, which no longer does.
    public var campaignAudiencesRedacted: Int

    public init(
        devicesDeleted: Int, notificationsAnonymised: Int, eventsAnonymised: Int, webhookMessagesRedacted: Int = 0,
        campaignAudiencesRedacted: Int = 0
    ) {
        self.devicesDeleted = devicesDeleted
        self.notificationsAnonymised = notificationsAnonymised
        self.eventsAnonymised = eventsAnonymised
        self.webhookMessagesRedacted = webhookMessagesRedacted
        self.campaignAudiencesRedacted = campaignAudiencesRedacted
    }

    /// Whether Herald held anything of the user.
    public var isEmpty: Bool {
        devicesDeleted == 0 && eventsAnonymised == 0 && webhookMessagesRedacted == 0 && campaignAudiencesRedacted == 0
    }
}

/// Reading the ledgers back, and a user's data requests.
public protocol LedgerRepository: Sendable {
    func notifications(appID: Int64, query: NotificationQuery) async throws -> NotificationPage
    func history(appID: Int64, token: DeviceToken) async throws -> DeviceHistory
    /// Whether Herald holds anything of the user: a device, an event, a webhook message or a
    /// campaign audience naming them.
    func holdsUser(appID: Int64, userID: String) async throws -> Bool
    /// A user's data, a page at a time, each list in its own order (newest first for ledgers).
    func userDevices(appID: Int64, userID: String, after: UserDataCursor?, limit: Int) async throws -> UserDataPage<Device>
    func userNotifications(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<NotificationRecord>
    func userCampaignDeliveries(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<CampaignDeliveryRecord>
    func userEvents(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<AppEventRecord>
    func userWebhookMessages(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<UserWebhookMessage>
    func userCampaignAudiences(
        appID: Int64, userID: String, after: UserDataCursor?, limit: Int
    ) async throws
        -> UserDataPage<UserCampaignAudience>
    /// Deletes the user's devices and anonymises what the ledgers, events, webhook outbox and
    /// campaign audiences hold of them, in one transaction, audited (with a digest of the user
    /// ID, not the ID).
    func erase(appID: Int64, userID: String, actor: String) async throws -> UserErasure
}
