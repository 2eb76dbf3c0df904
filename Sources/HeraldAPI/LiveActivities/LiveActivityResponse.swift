import APNSCore
import Foundation
import HeraldCore
import Hummingbird

struct StartTokenResponse: ResponseEncodable {
    var attributesType: String
    /// The token's last 8 hex digits: the full token is never shown.
    var tokenSuffix: String
    var registeredAt: Date
}

struct StartTokenListResponse: ResponseEncodable {
    var startTokens: [StartTokenResponse]
}

struct UpdateTokenResponse: ResponseEncodable {
    var activityID: String
    var tokenSuffix: String
    /// False when it replaced the device's earlier token for the activity.
    var created: Bool
}

struct LiveActivityResponse: ResponseEncodable {
    var activityID: String
    var attributesType: String?
    var state: String
    var tokens: Int
    var lastTimestamp: Int
    var createdAt: Date
    var lastUpdateAt: Date?
    var endedAt: Date?
    var dismissAt: Date?

    init(_ activity: LiveActivity) {
        activityID = activity.activityID
        attributesType = activity.attributesType
        state = activity.state.rawValue
        tokens = activity.tokenCount
        lastTimestamp = activity.lastTimestamp
        createdAt = activity.createdAt
        lastUpdateAt = activity.lastUpdateAt
        endedAt = activity.endedAt
        dismissAt = activity.dismissAt
    }
}

struct LiveActivityPageResponse: ResponseEncodable {
    var activities: [LiveActivityResponse]
    var nextCursor: String?
}

struct LiveActivityUpdateResponse: ResponseEncodable {
    var id: String
    var activityID: String
    var event: String
    var state: String
    /// The `aps.timestamp` sent: later than every earlier update's.
    var timestamp: Int
    var priority: Int
    /// Asked for priority 10 beyond the app's hourly allowance: sent at 5.
    var priorityLowered: Bool
    var note: String?
    var accepted: Int
    var failed: Int
    var dropped: Int
    var superseded: Int
    var createdAt: Date
    var finishedAt: Date?
    /// What APNs answered its broadcast to each of the activity's channels (one update's page only).
    var broadcasts: [BroadcastResponse]?

    init(_ update: LiveActivityUpdate) {
        id = String(update.id)
        activityID = update.activityID
        event = update.request.event.rawValue
        state = update.state.rawValue
        timestamp = update.timestamp
        priority = update.priority.rawValue
        priorityLowered = update.priorityLowered
        note =
            update.priorityLowered
            ? "priority 10 was asked beyond the app's hourly allowance for this activity (liveActivityHighPriorityPerHour): sent at 5"
            : nil
        accepted = update.counts.accepted
        failed = update.counts.failed
        dropped = update.counts.dropped
        superseded = update.counts.superseded
        createdAt = update.createdAt
        finishedAt = update.finishedAt
    }
}

struct LiveActivityUpdateListResponse: ResponseEncodable {
    var updates: [LiveActivityUpdateResponse]
    var nextCursor: String?
}

struct LiveActivityDeliveryResponse: ResponseEncodable {
    var tokenID: String
    var tokenSuffix: String
    var outcome: String
    var status: Int?
    var reason: String?
    var apnsID: String?
    var language: String?
    var recordedAt: Date

    init(_ delivery: LiveActivityDelivery) {
        tokenID = String(delivery.tokenID)
        tokenSuffix = delivery.tokenSuffix
        outcome = delivery.outcome.kind.rawValue
        status = delivery.outcome.status
        reason = delivery.outcome.reason
        apnsID = delivery.apnsID?.uuidString.lowercased()
        language = delivery.language?.value
        recordedAt = delivery.recordedAt
    }
}

struct LiveActivityDeliveryPageResponse: ResponseEncodable {
    var deliveries: [LiveActivityDeliveryResponse]
    var nextCursor: String?
}

/// One broadcast of an update to a channel.
struct BroadcastResponse: Codable, Sendable {
    var channelID: String
    var environment: String
    var outcome: String
    var status: Int?
    var reason: String?
    var requestID: String?
    var recordedAt: Date

    init(_ record: BroadcastRecord) {
        channelID = record.channelID.value
        environment = record.environment.rawValue
        outcome = record.outcome.rawValue
        status = record.status
        reason = record.reason
        requestID = record.requestID?.canonicalString
        recordedAt = record.recordedAt
    }
}
