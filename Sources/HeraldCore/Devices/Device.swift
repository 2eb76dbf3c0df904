import APNSCore
import Foundation

/// A device token registered for one app, as stored.
public struct Device: Sendable, Equatable {
    /// Herald's identifier of the registration; increases with every new registration.
    public var id: Int64
    public var token: DeviceToken
    public var environment: APNSEnvironment
    public var languages: [LanguageTag]
    public var authorization: AuthorizationSettings
    public var timeZone: String?
    public var userID: String?
    public var attributes: [String: PayloadValue]
    /// Virtual shard of the token, 0 ..< `DeviceBucket.count`; splits campaign work.
    public var bucket: Int
    /// Server time of the latest registration.
    public var registeredAt: Date
    public var createdAt: Date
    public var invalidatedAt: Date?
    public var invalidationReason: String?
    /// The `timestamp` of APNs's latest 410 answer for this token, in its milliseconds.
    public var apnsUnregisteredAt: APNSTimestamp?

    public init(
        id: Int64, token: DeviceToken, environment: APNSEnvironment, languages: [LanguageTag],
        authorization: AuthorizationSettings, timeZone: String?, userID: String?,
        attributes: [String: PayloadValue], bucket: Int, registeredAt: Date, createdAt: Date,
        invalidatedAt: Date?, invalidationReason: String?, apnsUnregisteredAt: APNSTimestamp?
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
        self.registeredAt = registeredAt
        self.createdAt = createdAt
        self.invalidatedAt = invalidatedAt
        self.invalidationReason = invalidationReason
        self.apnsUnregisteredAt = apnsUnregisteredAt
    }

    /// A device is valid until APNs or an admin says otherwise, and again after it registers.
    public var isValid: Bool { invalidatedAt == nil }
}

/// Virtual shards of the device table. The bucket is computed by PostgreSQL from the token
/// (first byte of its SHA-256), so it is stable across instances and versions.
public enum DeviceBucket {
    public static let count = 256
    /// Parts: sixteen equal slices of the bucket range, the ones a campaign's chunks cover; a
    /// device's part is stored as a label (migration 0029, docs/scaling.md).
    public static let partCount = 16
    public static let partWidth = count / partCount

    /// The part (0 ..< 16) every bucket of `buckets` is in; nil when they span more than one.
    public static func part(of buckets: ClosedRange<Int>) -> Int? {
        let part = buckets.lowerBound / partWidth
        return buckets.upperBound / partWidth == part ? part : nil
    }
}
