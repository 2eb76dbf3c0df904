import APNSCore
import Foundation

/// A campaign's (or transactional send's) request headers and payload settings on top of the
/// template. `nil` leaves a setting to the template or to APNs's default.
public struct PushOptions: Codable, Sendable, Hashable {
    /// APNs keeps an undeliverable notification for up to about 30 days.
    public static let maximumTimeToLive = 30 * 86_400
    public static let maximumTextLength = 256
    public static let maximumCustomBytes = 2048

    /// `alert` (the default), `background`, or `liveactivity` with ``liveActivity``.
    public var pushType: PushType?
    public var priority: Priority?
    /// When APNs may stop trying (`apns-expiration`).
    public var expiration: Date?
    /// Seconds after sending that APNs may stop trying; 0: try once, do not store.
    public var timeToLive: Int?
    /// `apns-collapse-id`; without one a campaign sends its own public ID, so a notification
    /// resent after a crash replaces the first on the device.
    public var collapseID: String?
    public var threadID: String?
    public var category: String?
    public var interruptionLevel: Payload.InterruptionLevel?
    public var relevanceScore: Double?
    /// Custom keys beside `aps`.
    public var custom: [String: PayloadValue]?
    /// What a `liveactivity` campaign starts.
    public var liveActivity: LiveActivityStart?

    public init(
        pushType: PushType? = nil, priority: Priority? = nil, expiration: Date? = nil, timeToLive: Int? = nil,
        collapseID: String? = nil, threadID: String? = nil, category: String? = nil,
        interruptionLevel: Payload.InterruptionLevel? = nil, relevanceScore: Double? = nil,
        custom: [String: PayloadValue]? = nil, liveActivity: LiveActivityStart? = nil
    ) {
        self.liveActivity = liveActivity
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.timeToLive = timeToLive
        self.collapseID = collapseID
        self.threadID = threadID
        self.category = category
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.custom = custom
    }

    /// The push type sent: alert unless set.
    public var resolvedPushType: PushType { pushType ?? .alert }

    /// The `apns-expiration` of a notification sent at `sentAt`; nil leaves the header out.
    public func apnsExpiration(sentAt: Date) -> APNSExpiration? {
        if let timeToLive {
            return timeToLive == 0 ? .immediately : .at(sentAt.addingTimeInterval(TimeInterval(timeToLive)))
        }
        return expiration.map { .at($0) }
    }

    /// Every problem, each naming its field (`collapseID`, `custom.aps`); empty when usable.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let pushType, pushType != .alert, pushType != .background, pushType != .liveactivity {
            errors.append(ValidationError(field: "pushType", reason: "campaigns send alert, background or liveactivity pushes"))
        }
        if pushType == .liveactivity, liveActivity == nil {
            errors.append(
                ValidationError(field: "liveActivity", reason: "a liveactivity campaign says what it starts: attributesType, activityID…"))
        }
        if let liveActivity {
            if pushType != .liveactivity {
                errors.append(ValidationError(field: "liveActivity", reason: "belongs to a campaign whose pushType is liveactivity"))
            }
            errors += liveActivity.validate().map { ValidationError(field: "liveActivity.\($0.field)", reason: $0.reason) }
        }
        if resolvedPushType == .background, let priority, priority != .powerAware {
            errors.append(ValidationError(field: "priority", reason: "a background push must use priority 5"))
        }
        if expiration != nil, timeToLive != nil {
            errors.append(ValidationError(field: "timeToLive", reason: "give expiration or timeToLive, not both"))
        }
        if let timeToLive, !(0...Self.maximumTimeToLive).contains(timeToLive) {
            errors.append(
                ValidationError(field: "timeToLive", reason: "must be 0 to \(Self.maximumTimeToLive) seconds"))
        }
        if let expiration, expiration.timeIntervalSince1970 < 0 {
            errors.append(ValidationError(field: "expiration", reason: "must be after 1970"))
        }
        // An HTTP/2 header value: the rule APNs and the sender apply, checked here where the
        // campaign (or send) is made, so a bad one never reaches the audience.
        if let collapseID {
            do {
                try APNSNotification.validateCollapseID(collapseID)
            } catch .collapseIDLength {
                errors.append(
                    ValidationError(
                        field: "collapseID", reason: "must be 1 to \(APNSNotification.maximumCollapseIDBytes) bytes of UTF-8"))
            } catch {
                errors.append(
                    ValidationError(
                        field: "collapseID",
                        reason: "must not contain control characters (CR, LF, NUL, tab…): it is sent as the apns-collapse-id header"))
            }
        }
        for (field, text) in [("threadID", threadID), ("category", category)] {
            if let text, text.isEmpty || TextRules.storedLength(text) > Self.maximumTextLength {
                errors.append(ValidationError(field: field, reason: "must be 1 to \(Self.maximumTextLength) characters"))
            } else if let text, let scalar = TextRules.forbiddenCharacter(in: text) {
                errors.append(ValidationError(field: field, reason: TextRules.reason(scalar)))
            }
        }
        if pushType == .liveactivity, relevanceScore != nil {
            errors.append(ValidationError(field: "relevanceScore", reason: "a Live Activity's goes in liveActivity.relevanceScore"))
        } else if let relevanceScore, !(0.0...1.0).contains(relevanceScore) {
            errors.append(ValidationError(field: "relevanceScore", reason: "must be between 0 and 1"))
        }
        if let custom {
            errors += Self.check(custom: custom)
        }
        return errors
    }

    private static func check(custom: [String: PayloadValue]) -> [ValidationError] {
        if custom["aps"] != nil {
            return [ValidationError(field: "custom.aps", reason: "aps belongs to APNs; custom keys go beside it")]
        }
        if let problem = StoredValueRules.problem(in: .object(custom), field: "custom") { return [problem] }
        guard custom.values.allSatisfy(\.isFinite) else {
            return [ValidationError(field: "custom", reason: "numbers must be finite")]
        }
        guard let size = try? CanonicalJSON.data(custom).count else {
            return [ValidationError(field: "custom", reason: "cannot be written as JSON")]
        }
        if size > maximumCustomBytes {
            return [ValidationError(field: "custom", reason: "at most \(maximumCustomBytes) bytes of JSON, got \(size)")]
        }
        return []
    }
}
