import APNSCore
import HeraldCore

/// What rendering needs to know about one device: its languages, what it lets notifications
/// do, and the values argument expressions read.
public struct Recipient: Sendable, Equatable {
    /// The user's preferred languages, most preferred first.
    public var languages: [LanguageTag]
    public var authorization: AuthorizationSettings
    /// The app's own user ID (`user.id`).
    public var userID: String?
    /// App-defined attributes (`attributes.NAME`).
    public var attributes: [String: PayloadValue]
    /// The device's IANA time zone, for dates an argument formats; UTC when nil.
    public var timeZone: String?

    public init(
        languages: [LanguageTag] = [],
        authorization: AuthorizationSettings,
        userID: String? = nil,
        attributes: [String: PayloadValue] = [:],
        timeZone: String? = nil
    ) {
        self.languages = languages
        self.authorization = authorization
        self.userID = userID
        self.attributes = attributes
        self.timeZone = timeZone
    }

    /// The recipient a registered device describes.
    public init(device: Device) {
        self.init(
            languages: device.languages, authorization: device.authorization, userID: device.userID,
            attributes: device.attributes, timeZone: device.timeZone
        )
    }

    /// The recipient a campaign's device describes.
    public init(device: CampaignDevice) {
        self.init(
            languages: device.languages, authorization: device.authorization, userID: device.userID,
            attributes: device.attributes, timeZone: device.timeZone
        )
    }
}
