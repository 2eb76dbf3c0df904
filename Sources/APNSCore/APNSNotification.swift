import Foundation

/// One notification to one device: everything that goes into an APNs request.
///
/// Check it with ``validate()`` before sending; build its headers with
/// ``requestHeaders(providerToken:indexing:)``.
public struct APNSNotification: Hashable, Sendable {
    /// The device.
    public var token: DeviceToken
    /// The full `apns-topic`: the bundle ID plus the push type's suffix.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`.
    public var priority: Priority
    /// `apns-expiration`; `nil` omits the header.
    public var expiration: APNSExpiration?
    /// `apns-collapse-id`; `nil` omits the header.
    public var collapseID: String?
    /// `apns-id`. Campaigns use a UUIDv5 of campaign and device, so a resend after a crash
    /// carries the same ID (DESIGN.md rule 2).
    public var apnsID: UUID
    /// The body.
    public var payload: Payload

    /// Creates a notification for a full topic. A `nil` priority takes the push type's
    /// default (5 for background, 10 otherwise).
    public init(
        token: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID = UUID(),
        payload: Payload
    ) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority ?? pushType.defaultPriority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// Creates a notification for an app, deriving the topic from the bundle ID and push type.
    public init(
        token: DeviceToken,
        bundleID: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID = UUID(),
        payload: Payload
    ) {
        self.init(
            token: token,
            topic: pushType.topic(forBundleID: bundleID),
            pushType: pushType,
            priority: priority,
            expiration: expiration,
            collapseID: collapseID,
            apnsID: apnsID,
            payload: payload
        )
    }
}
