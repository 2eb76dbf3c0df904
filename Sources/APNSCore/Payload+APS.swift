extension Payload {
    /// The `aps` dictionary: every key of docs/apns.md "Payloads". `nil` (or `false` for the two
    /// flags) leaves a key out.
    public struct APS: Hashable, Sendable {
        /// `alert`: a plain body string or the alert dictionary.
        public var alert: AlertContent?
        /// `badge`: the number on the app icon; 0 clears it.
        public var badge: Int?
        /// `sound`: a sound name, or the critical-alert dictionary.
        public var sound: Sound?
        /// `thread-id`: groups notifications.
        public var threadID: String?
        /// `category`: the notification's actionable category.
        public var category: String?
        /// `content-available: 1` when true: a background update.
        public var contentAvailable: Bool
        /// `mutable-content: 1` when true: lets a notification service extension change it.
        public var mutableContent: Bool
        /// `target-content-id`: the window or content to bring forward.
        public var targetContentID: String?
        /// `interruption-level`.
        public var interruptionLevel: InterruptionLevel?
        /// `relevance-score`: 0...1 for notifications; any finite number for a Live Activity
        /// (it orders an app's activities).
        public var relevanceScore: Double?
        /// `filter-criteria`: the Focus filter this notification belongs to.
        public var filterCriteria: String?
        /// `stale-date` (Live Activity), UNIX seconds.
        public var staleDate: Int?
        /// `content-state` (Live Activity): the activity's dynamic content.
        public var contentState: PayloadValue?
        /// `timestamp` (Live Activity), UNIX seconds.
        public var timestamp: Int?
        /// `event` (Live Activity): `start`, `update` or `end`.
        public var event: LiveActivityEvent?
        /// `dismissal-date` (Live Activity), UNIX seconds.
        public var dismissalDate: Int?
        /// `attributes-type` (Live Activity start): the app's `ActivityAttributes` type name.
        public var attributesType: String?
        /// `attributes` (Live Activity start): the activity's static attributes.
        public var attributes: PayloadValue?
        /// `input-push-token: 1` when true (Live Activity start): the started activity mints an
        /// update token for the app to send back.
        public var inputPushToken: Bool = false
        /// `input-push-channel` (Live Activity start): the broadcast channel the started
        /// activity subscribes to.
        public var inputPushChannel: String?

        public init(
            alert: AlertContent? = nil,
            badge: Int? = nil,
            sound: Sound? = nil,
            threadID: String? = nil,
            category: String? = nil,
            contentAvailable: Bool = false,
            mutableContent: Bool = false,
            targetContentID: String? = nil,
            interruptionLevel: InterruptionLevel? = nil,
            relevanceScore: Double? = nil,
            filterCriteria: String? = nil,
            staleDate: Int? = nil,
            contentState: PayloadValue? = nil,
            timestamp: Int? = nil,
            event: LiveActivityEvent? = nil,
            dismissalDate: Int? = nil
        ) {
            self.alert = alert
            self.badge = badge
            self.sound = sound
            self.threadID = threadID
            self.category = category
            self.contentAvailable = contentAvailable
            self.mutableContent = mutableContent
            self.targetContentID = targetContentID
            self.interruptionLevel = interruptionLevel
            self.relevanceScore = relevanceScore
            self.filterCriteria = filterCriteria
            self.staleDate = staleDate
            self.contentState = contentState
            self.timestamp = timestamp
            self.event = event
            self.dismissalDate = dismissalDate
        }

        /// True when no key would be written.
        public var isEmpty: Bool {
            self == APS()
        }

        /// True when the only key written is `content-available: 1`: what a background push
        /// must carry (docs/apns.md "Payloads", background updates).
        public var isContentAvailableOnly: Bool {
            self == APS(contentAvailable: true)
        }
    }

    /// `interruption-level`: how strongly the notification may break through Focus.
    public enum InterruptionLevel: String, CaseIterable, Hashable, Codable, Sendable {
        case passive
        case active
        case timeSensitive = "time-sensitive"
        case critical
    }

    /// `event` of a Live Activity push.
    public enum LiveActivityEvent: String, CaseIterable, Hashable, Codable, Sendable {
        case start
        case update
        case end
    }
}
