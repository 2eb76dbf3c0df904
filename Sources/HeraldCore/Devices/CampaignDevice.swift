import APNSCore

/// A device as a campaign sends to it: what deciding, rendering and sending its notification
/// need, without its registry history (registration times, invalidation). A campaign reads a
/// page of these per batch, so it reads only these columns.
public struct CampaignDevice: Sendable, Equatable {
    public var id: Int64
    public var token: DeviceToken
    public var environment: APNSEnvironment
    public var languages: [LanguageTag]
    public var authorization: AuthorizationSettings
    public var timeZone: String?
    public var userID: String?
    public var attributes: [String: PayloadValue]
    /// Virtual shard of the token, 0 ..< `DeviceBucket.count`; carried to the device's ledger row.
    public var bucket: Int

    public init(
        id: Int64, token: DeviceToken, environment: APNSEnvironment, languages: [LanguageTag],
        authorization: AuthorizationSettings, timeZone: String?, userID: String?,
        attributes: [String: PayloadValue], bucket: Int
    ) {
        self.id = id
        self.token = token
        self.environment = environment
        self.languages = languages
        self.authorization = authorization
        self.timeZone = timeZone
        self.userID = userID
        self.attributes = attributes
        self.bucket = bucket
    }

    /// The campaign's view of a registered device.
    public init(_ device: Device) {
        self.init(
            id: device.id, token: device.token, environment: device.environment, languages: device.languages,
            authorization: device.authorization, timeZone: device.timeZone, userID: device.userID,
            attributes: device.attributes, bucket: device.bucket)
    }
}
