/// Why APNs refused a request: the `reason` of its error body or GOAWAY frame.
///
/// Every reason of docs/apns.md "Responses" is a static member; any other string is kept as it
/// came, because APNs adds new ones.
public struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    // 400
    public static let badCollapseID = APNSReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNSReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNSReason(rawValue: "BadExpirationDate")
    public static let badMessageID = APNSReason(rawValue: "BadMessageId")
    public static let badPriority = APNSReason(rawValue: "BadPriority")
    public static let badTopic = APNSReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNSReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNSReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNSReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNSReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNSReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNSReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNSReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNSReason(rawValue: "TopicDisallowed")
    // 403
    public static let badCertificate = APNSReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNSReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNSReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNSReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNSReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNSReason(rawValue: "MissingProviderToken")
    // 404, 405
    public static let badPath = APNSReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNSReason(rawValue: "MethodNotAllowed")
    // 410
    public static let unregistered = APNSReason(rawValue: "Unregistered")
    public static let expiredToken = APNSReason(rawValue: "ExpiredToken")
    // 413
    public static let payloadTooLarge = APNSReason(rawValue: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNSReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNSReason(rawValue: "TooManyRequests")
    // 500, 503
    public static let internalServerError = APNSReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNSReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNSReason(rawValue: "Shutdown")

    // Broadcast channels (docs/live-activities.md "Broadcast channels").
    public static let missingChannelID = APNSReason(rawValue: "MissingChannelId")
    public static let badChannelID = APNSReason(rawValue: "BadChannelId")
    public static let channelNotRegistered = APNSReason(rawValue: "ChannelNotRegistered")
    public static let cannotCreateChannelConfig = APNSReason(rawValue: "CannotCreateChannelConfig")

    /// Every reason docs/apns.md documents, with the status APNs sends it with.
    public static let documented: [(reason: APNSReason, status: Int)] = [
        (.badCollapseID, 400), (.badDeviceToken, 400), (.badExpirationDate, 400), (.badMessageID, 400),
        (.badPriority, 400), (.badTopic, 400), (.deviceTokenNotForTopic, 400), (.duplicateHeaders, 400),
        (.idleTimeout, 400), (.invalidPushType, 400), (.missingDeviceToken, 400), (.missingTopic, 400),
        (.payloadEmpty, 400), (.topicDisallowed, 400),
        (.badCertificate, 403), (.badCertificateEnvironment, 403), (.expiredProviderToken, 403),
        (.forbidden, 403), (.invalidProviderToken, 403), (.missingProviderToken, 403),
        (.badPath, 404), (.methodNotAllowed, 405),
        (.unregistered, 410), (.expiredToken, 410),
        (.payloadTooLarge, 413),
        (.tooManyProviderTokenUpdates, 429), (.tooManyRequests, 429),
        (.internalServerError, 500),
        (.serviceUnavailable, 503), (.shutdown, 503),
    ]

    /// True for the reasons docs/apns.md documents.
    public var isDocumented: Bool {
        Self.documented.contains { $0.reason == self }
    }
}

extension APNSReason: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }
}
