extension Payload {
    /// `aps.alert`: either a plain string (shown as the body) or the alert dictionary
    /// (docs/apns.md "Payloads": dictionary preferred, or string = body).
    public enum AlertContent: Hashable, Sendable {
        /// Written as `"alert": "<body>"`.
        case body(String)
        /// Written as `"alert": {...}`.
        case fields(Alert)
        /// A Live Activity's alert, written as `"alert": {"title": …, "body": …, "sound": …}`.
        case liveActivity(LiveActivityAlert)
    }

    /// The alert of a Live Activity push: its title and body are text or a `loc-key` with
    /// `loc-args` for the app to localize, and its sound sits inside it (Apple's "Starting and
    /// updating Live Activities with ActivityKit push notifications").
    public struct LiveActivityAlert: Hashable, Sendable {
        public enum Text: Hashable, Sendable {
            /// Written as a string.
            case plain(String)
            /// Written as `{"loc-key": …, "loc-args": […]}`.
            case localized(key: String, arguments: [String])
        }

        public var title: Text
        public var body: Text
        /// A sound file's name in the app bundle, or `default`.
        public var sound: String?

        public init(title: Text, body: Text, sound: String? = nil) {
            self.title = title
            self.body = body
            self.sound = sound
        }
    }

    /// The alert dictionary. Every key is optional; `nil` leaves it out. The `*LocKey` /
    /// `*LocArgs` pairs let the device localize from the app's `Localizable.strings`
    /// (docs/apns.md "Localization", client-side).
    public struct Alert: Hashable, Sendable {
        /// `title`.
        public var title: String?
        /// `subtitle`.
        public var subtitle: String?
        /// `body`.
        public var body: String?
        /// `launch-image`.
        public var launchImage: String?
        /// `title-loc-key`.
        public var titleLocKey: String?
        /// `title-loc-args`.
        public var titleLocArgs: [String]?
        /// `subtitle-loc-key`.
        public var subtitleLocKey: String?
        /// `subtitle-loc-args`.
        public var subtitleLocArgs: [String]?
        /// `loc-key`.
        public var locKey: String?
        /// `loc-args`.
        public var locArgs: [String]?
        /// `action-loc-key` (legacy).
        public var actionLocKey: String?

        public init(
            title: String? = nil,
            subtitle: String? = nil,
            body: String? = nil,
            launchImage: String? = nil,
            titleLocKey: String? = nil,
            titleLocArgs: [String]? = nil,
            subtitleLocKey: String? = nil,
            subtitleLocArgs: [String]? = nil,
            locKey: String? = nil,
            locArgs: [String]? = nil,
            actionLocKey: String? = nil
        ) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.launchImage = launchImage
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
            self.actionLocKey = actionLocKey
        }
    }
}
