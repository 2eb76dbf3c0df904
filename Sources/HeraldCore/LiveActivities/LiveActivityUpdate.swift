import APNSCore
import Foundation

/// What a caller asks to send to every update token of an activity
/// (`POST /v1/apps/{bundleID}/live-activities/{activityID}/updates`).
public struct LiveActivityUpdateRequest: Sendable, Equatable {
    /// An update's alert: text given as is, or a template rendered in each device's language.
    public enum Alert: Sendable, Equatable {
        case text(Payload.LiveActivityAlert)
        case template(name: String, version: Int?, localization: Campaign.LocalizationMode, variables: [String: PayloadValue])
    }

    public var event: Payload.LiveActivityEvent
    /// Must decode into the widget's `ContentState`: a JSON object.
    public var contentState: [String: PayloadValue]
    public var alert: Alert?
    public var staleDate: Date?
    public var dismissalDate: Date?
    public var relevanceScore: Double?
    /// 10 to ask for immediate delivery within the app's allowance; nil or 5 otherwise.
    public var priority: Priority?
    /// The same key again answers the first update instead of sending another.
    public var idempotencyKey: String?

    public init(
        event: Payload.LiveActivityEvent, contentState: [String: PayloadValue], alert: Alert? = nil, staleDate: Date? = nil,
        dismissalDate: Date? = nil, relevanceScore: Double? = nil, priority: Priority? = nil, idempotencyKey: String? = nil
    ) {
        self.event = event
        self.contentState = contentState
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.priority = priority
        self.idempotencyKey = idempotencyKey
    }

    public static let maximumIdempotencyKeyBytes = 200

    /// Every rule that does not need the database, checked at `now`; the first problem names
    /// its field as the API spells it.
    public func validate(now: Date) -> ValidationError? {
        guard event != .start else {
            return ValidationError(field: "event", reason: "must be update or end (activities start from a campaign)")
        }
        if let problem = StoredValueRules.problem(in: .object(contentState), field: "contentState") { return problem }
        if dismissalDate != nil, event != .end {
            return ValidationError(field: "dismissalDate", reason: "belongs to an end; an update has a staleDate")
        }
        if staleDate != nil, event == .end {
            return ValidationError(field: "staleDate", reason: "belongs to an update; an end has a dismissalDate")
        }
        if let staleDate, staleDate <= now {
            return ValidationError(field: "staleDate", reason: "must be in the future")
        }
        if let relevanceScore, !relevanceScore.isFinite {
            return ValidationError(field: "relevanceScore", reason: "must be a finite number")
        }
        if let idempotencyKey {
            let bytes = idempotencyKey.utf8.count
            guard bytes > 0, bytes <= Self.maximumIdempotencyKeyBytes, TextRules.forbiddenCharacter(in: idempotencyKey) == nil
            else {
                return ValidationError(
                    field: "idempotencyKey",
                    reason: "must be 1 to \(Self.maximumIdempotencyKeyBytes) bytes without control characters")
            }
        }
        if case .text(let alert)? = alert {
            for (field, text) in [("alert.title", alert.title), ("alert.body", alert.body)] {
                if case .plain(let plain) = text, plain.isEmpty {
                    return ValidationError(field: field, reason: "must not be empty")
                }
            }
        }
        return nil
    }
}

/// An update as stored and sent: the request, the `aps.timestamp` and priority Herald gave it,
/// and how far its fan-out has gone.
public struct LiveActivityUpdate: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting for a sender (or for an earlier update of the activity to finish).
        case queued
        /// Being fanned out.
        case sending
        /// Every token was tried.
        case sent
        /// A newer update of the activity came first; what was not yet sent never will be.
        case superseded
    }

    public var id: Int64
    public var appID: Int64
    public var activityID: String
    public var request: LiveActivityUpdateRequest
    /// The `aps.timestamp` sent: only grows for an activity.
    public var timestamp: Int
    public var priority: Priority
    /// Asked for 10 beyond the allowance, sent at 5.
    public var priorityLowered: Bool
    public var state: State
    public var actor: String
    public var counts: Counts
    public var createdAt: Date
    public var finishedAt: Date?

    /// The tokens of the fan-out, by what became of them.
    public struct Counts: Sendable, Equatable {
        public var accepted: Int
        public var failed: Int
        /// Tokens APNs said are gone (410 and other token errors): dropped from the activity.
        public var dropped: Int
        /// Tokens not sent because a newer update came first.
        public var superseded: Int

        public init(accepted: Int = 0, failed: Int = 0, dropped: Int = 0, superseded: Int = 0) {
            self.accepted = accepted
            self.failed = failed
            self.dropped = dropped
            self.superseded = superseded
        }
    }

    public init(
        id: Int64, appID: Int64, activityID: String, request: LiveActivityUpdateRequest, timestamp: Int, priority: Priority,
        priorityLowered: Bool, state: State, actor: String, counts: Counts, createdAt: Date, finishedAt: Date?
    ) {
        self.id = id
        self.appID = appID
        self.activityID = activityID
        self.request = request
        self.timestamp = timestamp
        self.priority = priority
        self.priorityLowered = priorityLowered
        self.state = state
        self.actor = actor
        self.counts = counts
        self.createdAt = createdAt
        self.finishedAt = finishedAt
    }

    /// The apns-id of this update to a token: the same on a resend after a crash.
    public func apnsID(forToken tokenID: Int64) -> UUID {
        UUID.version5(namespace: Self.apnsIDNamespace, name: "\(id)/\(tokenID)")
    }

    /// The `apns-request-id` of its broadcast to a channel: the same on a resend.
    public func requestID(forChannel channel: BroadcastChannelID) -> UUID {
        UUID.version5(namespace: Self.apnsIDNamespace, name: "\(id)/channel/\(channel.value)")
    }

    static let apnsIDNamespace = UUID(uuidString: "6f1c1a5e-3a0b-4f7e-9a59-6c6976656163")!
}

/// What became of one update token in an update's fan-out: the update's ledger.
public struct LiveActivityDelivery: Sendable, Equatable {
    public var tokenID: Int64
    public var deviceID: Int64?
    /// The update token (never shown whole: ``tokenSuffix``).
    public var token: DeviceToken
    public var outcome: DeliveryOutcome
    public var apnsID: UUID?
    public var language: LanguageTag?
    public var recordedAt: Date

    /// The update token's last 8 hex digits.
    public var tokenSuffix: String { String(token.hex.suffix(8)) }

    public init(
        tokenID: Int64, deviceID: Int64?, token: DeviceToken, outcome: DeliveryOutcome, apnsID: UUID?, language: LanguageTag?,
        recordedAt: Date
    ) {
        self.tokenID = tokenID
        self.deviceID = deviceID
        self.token = token
        self.outcome = outcome
        self.apnsID = apnsID
        self.language = language
        self.recordedAt = recordedAt
    }
}
