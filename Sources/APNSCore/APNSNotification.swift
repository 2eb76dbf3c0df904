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
    /// `apns-id`. A campaign's names its campaign and device, so a resend after a crash
    /// carries the same ID (docs/rules.md rule 2).
    public var apnsID: UUID
    /// The body. A notification made from encoded bytes decodes them here (tests, previews);
    /// setting it replaces the bytes.
    public var payload: Payload {
        get {
            switch body {
            case .payload(let payload): payload
            case .encoded(let bytes): (try? Payload(json: bytes)) ?? Payload()
            }
        }
        set { body = .payload(newValue) }
    }

    /// The body as given: a payload to encode, or bytes already encoded from a checked payload.
    public enum Body: Hashable, Sendable {
        case payload(Payload)
        /// The encoding of a payload that passed ``Payload/validate(for:)`` for this push type
        /// (a template renderer's output); sending checks only its size.
        case encoded([UInt8])
    }

    public var body: Body

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
        self.init(
            token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, body: .payload(payload))
    }

    /// Creates a notification for a full topic from a body (see ``Body``).
    public init(
        token: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID = UUID(),
        body: Body
    ) {
        // Each field set once: a campaign makes one of these per device.
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority ?? pushType.defaultPriority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.body = body
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
