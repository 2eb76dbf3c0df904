import APNSCore
import Foundation

/// Which of an app's valid devices a campaign goes to. Every condition given must hold; a list
/// matches any of its values; an empty filter is every valid device of the app. The store
/// compiles it to SQL with bound parameters only; it is kept as JSON with the campaign.
/// Dates travel as ISO 8601 in whole seconds.
public struct AudienceFilter: Codable, Sendable, Hashable {
    public static let maximumLanguages = 100
    public static let maximumAttributeKeys = 50
    public static let maximumAttributeKeyLength = 128
    public static let maximumAttributeValues = 1000
    public static let maximumUserIDs = 1000
    public static let maximumTimeZones = 500

    public var environment: APNSEnvironment?
    /// BCP 47 tags matched against the device's *first* preferred language. A bare language
    /// (`pt`) matches every tag with that primary subtag (`pt`, `pt-BR`, `pt-PT`); a longer tag
    /// (`pt-BR`, `zh-Hant`) matches that exact tag only. Devices without languages never match.
    public var languages: [String]?
    /// App-defined attributes: each key must hold an equal value, or one of a set.
    public var attributes: [String: AttributeCondition]?
    public var userIDs: [String]?
    /// Devices whose latest registration is at or after this time.
    public var registeredSince: Date?
    /// Devices whose latest registration is before this time.
    public var registeredBefore: Date?
    public var authorization: AuthorizationCondition?
    /// IANA time zone names.
    public var timeZones: [String]?
    /// Devices holding a push-to-start token for this `ActivityAttributes` type. Set from a
    /// `liveactivity` campaign's ``PushOptions/liveActivity``, never given by callers.
    public var startTokenType: String?
    /// Conditions on attributes, device fields and behaviour, nested (docs/segments.md); they
    /// must hold besides the fields above.
    public var segment: Segment?
    /// A saved segment whose conditions must hold too; its version is pinned when the campaign
    /// is scheduled.
    public var savedSegment: SegmentReference?
    /// The conditions of ``savedSegment``'s version. Set by Herald when it resolves the name (a
    /// campaign keeps them from its scheduling on), never given by callers.
    public var savedSegmentDefinition: Segment?
    /// The moment a segment's "within N days" counts back from: a campaign's start, so every
    /// chunk reads the audience it froze. Set by the store, never given by callers; nil: now.
    public var segmentTime: Date?

    public init(
        environment: APNSEnvironment? = nil, languages: [String]? = nil, attributes: [String: AttributeCondition]? = nil,
        userIDs: [String]? = nil, registeredSince: Date? = nil, registeredBefore: Date? = nil,
        authorization: AuthorizationCondition? = nil, timeZones: [String]? = nil
    ) {
        self.environment = environment
        self.languages = languages
        self.attributes = attributes
        self.userIDs = userIDs
        self.registeredSince = registeredSince
        self.registeredBefore = registeredBefore
        self.authorization = authorization
        self.timeZones = timeZones
    }

    /// One attribute's condition. In JSON an equality is the value itself (`"pro"`), a
    /// membership an object with one key `in` (`{"in": ["DE", "AT"]}`).
    public enum AttributeCondition: Codable, Sendable, Hashable {
        /// A string, number or boolean the attribute must equal.
        case equals(PayloadValue)
        /// Values the attribute must equal one of.
        case oneOf([PayloadValue])

        public init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer().decode(PayloadValue.self)
            if case .object(let object) = value, object.count == 1, case .array(let values)? = object["in"] {
                self = .oneOf(values)
            } else {
                self = .equals(value)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .equals(let value): try container.encode(value)
            case .oneOf(let values): try container.encode(PayloadValue.object(["in": .array(values)]))
            }
        }
    }

    /// What the device's notification settings must allow. Each field given must hold.
    public struct AuthorizationCondition: Codable, Sendable, Hashable {
        /// The authorization status is one of these.
        public var statuses: [AuthorizationSettings.Status]?
        /// `true`: only devices that show alerts (``AuthorizationSettings/allowsAlerts``);
        /// `false`: only devices that do not.
        public var allowsAlerts: Bool?
        public var badge: Bool?
        public var sound: Bool?
        public var criticalAlert: Bool?
        public var timeSensitive: Bool?

        public init(
            statuses: [AuthorizationSettings.Status]? = nil, allowsAlerts: Bool? = nil, badge: Bool? = nil,
            sound: Bool? = nil, criticalAlert: Bool? = nil, timeSensitive: Bool? = nil
        ) {
            self.statuses = statuses
            self.allowsAlerts = allowsAlerts
            self.badge = badge
            self.sound = sound
            self.criticalAlert = criticalAlert
            self.timeSensitive = timeSensitive
        }
    }

    /// ``languages`` normalized and split as they are matched: bare primary subtags, matched
    /// against the first language's primary subtag, and longer tags, matched exactly.
    public var languageMatch: (languages: [String], tags: [String]) {
        var bare = [String]()
        var exact = [String]()
        for text in languages ?? [] {
            guard let tag = LanguageTag(text) else { continue }
            if tag.value == tag.language {
                if !bare.contains(tag.value) { bare.append(tag.value) }
            } else if !exact.contains(tag.value) {
                exact.append(tag.value)
            }
        }
        return (bare, exact)
    }

    /// The statuses under which a device with alerts on shows them: what `allowsAlerts`
    /// compiles to, taken from ``AuthorizationSettings/allowsAlerts`` so the rule lives once.
    public static let alertShowingStatuses: [AuthorizationSettings.Status] =
        AuthorizationSettings.Status.allCases.filter { AuthorizationSettings(status: $0, alert: true).allowsAlerts }
}
