/// Why Herald refuses to send a notification. Each case names the APNs rule it enforces
/// (docs/apns.md, docs/rules.md rule 5); descriptions never contain the payload, token or key.
public enum NotificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `aps` and the custom keys are both empty (APNs: 400 PayloadEmpty).
    case payloadEmpty
    /// The encoded payload is over the push type's limit (APNs: 413 PayloadTooLarge).
    case payloadTooLarge(size: Int, limit: Int)
    /// A custom key is named `aps`; custom keys go beside `aps`, never inside or over it.
    case customKeyNamedAPS
    /// A number in the payload is NaN or infinite, which JSON cannot express.
    case nonFiniteNumber
    /// A background push's `aps` holds something besides `content-available: 1`.
    case backgroundPayloadNotContentAvailableOnly
    /// A background push with a priority other than 5 (APNs: 400 BadPriority for 10).
    case backgroundPriorityNotPowerAware
    /// The collapse ID is empty or longer than 64 bytes of UTF-8 (APNs: 400 BadCollapseId).
    case collapseIDLength(bytes: Int)
    /// The apns-id is not a canonical lowercase UUID (APNs: 400 BadMessageId).
    case apnsIDNotCanonical
    /// The topic is empty (APNs: 400 MissingTopic).
    case missingTopic
    /// The topic does not end with the suffix the push type requires (APNs: 400 BadTopic).
    case topicSuffixMismatch(pushType: PushType)
    /// `relevance-score` is outside 0...1.
    case relevanceScoreOutOfRange
    /// A critical sound's volume is outside 0...1.
    case criticalVolumeOutOfRange
    /// The expiration is before 1970 (APNs: 400 BadExpirationDate).
    case expirationBeforeEpoch
    /// A Live Activity payload misses a key its event needs, or carries one it may not
    /// (docs/live-activities.md "Payload"); the text names the key.
    case liveActivity(String)
    /// A header value (topic or collapse ID) holds a control character, which HTTP field
    /// values may not carry (RFC 9110 §5.5).
    case controlCharacterInHeader(name: String)

    public var description: String {
        switch self {
        case .payloadEmpty:
            "payload is empty: APNs refuses an empty body (PayloadEmpty)"
        case .payloadTooLarge(let size, let limit):
            "payload is \(size) bytes, over the \(limit)-byte limit for its push type (APNs: 4096 bytes, voip 5120)"
        case .customKeyNamedAPS:
            "a custom payload key is named \"aps\": custom keys go beside aps, never replace it"
        case .nonFiniteNumber:
            "payload holds NaN or infinity, which JSON cannot express"
        case .backgroundPayloadNotContentAvailableOnly:
            "background push: aps must hold only content-available: 1 (no alert, badge or sound)"
        case .backgroundPriorityNotPowerAware:
            "background push must use apns-priority 5"
        case .collapseIDLength(let bytes):
            "apns-collapse-id is \(bytes) bytes; it must be 1 to 64 bytes of UTF-8"
        case .apnsIDNotCanonical:
            "apns-id must be a canonical lowercase UUID (8-4-4-4-12 hex digits)"
        case .missingTopic:
            "apns-topic is empty"
        case .topicSuffixMismatch(let pushType):
            "apns-topic for a \(pushType.rawValue) push must be the bundle ID followed by \"\(pushType.topicSuffix)\""
        case .relevanceScoreOutOfRange:
            "relevance-score must be within 0...1"
        case .criticalVolumeOutOfRange:
            "critical sound volume must be within 0...1"
        case .expirationBeforeEpoch:
            "apns-expiration must not be before 1970-01-01"
        case .liveActivity(let rule):
            "Live Activity payload: \(rule)"
        case .controlCharacterInHeader(let name):
            "\(name) must not contain control characters"
        }
    }
}
