import APNSCore
import Foundation

/// A page request over one app's devices, in registration-ID order.
public struct DeviceListQuery: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maximumLimit = 1000

    public var userID: String?
    /// Devices whose preferred languages include this tag.
    public var language: LanguageTag?
    /// Only valid (`true`) or only invalidated (`false`) devices.
    public var valid: Bool?
    /// The last device ID of the previous page.
    public var cursor: Int64?
    public var limit: Int

    public init(
        userID: String? = nil, language: LanguageTag? = nil, valid: Bool? = nil, cursor: Int64? = nil,
        limit: Int = Self.defaultLimit
    ) {
        self.userID = userID
        self.language = language
        self.valid = valid
        self.cursor = cursor
        self.limit = limit
    }
}

/// One page of devices and where the next one starts (`nil` at the end).
public struct DevicePage: Sendable {
    public var devices: [Device]
    public var nextCursor: Int64?

    public init(devices: [Device], nextCursor: Int64?) {
        self.devices = devices
        self.nextCursor = nextCursor
    }
}

/// One registration to import: a line of an NDJSON import.
public struct DeviceImportItem: Sendable {
    public var token: DeviceToken
    public var registration: DeviceRegistration

    public init(token: DeviceToken, registration: DeviceRegistration) {
        self.token = token
        self.registration = registration
    }
}

/// What one import batch wrote.
public struct DeviceImportCounts: Sendable, Equatable {
    public var created: Int
    public var updated: Int

    public init(created: Int = 0, updated: Int = 0) {
        self.created = created
        self.updated = updated
    }
}
