import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// A device as the API shows it. The token appears only as its last 8 hex digits
/// (docs/rules.md rule 9): the caller who registered it knows the rest.
struct DeviceResponse: ResponseEncodable {
    var id: Int64
    var tokenSuffix: String
    var environment: String
    var languages: [String]
    var authorization: AuthorizationSettings
    var timeZone: String?
    var userID: String?
    var attributes: [String: PayloadValue]
    var bucket: Int
    var valid: Bool
    var registeredAt: Date
    var createdAt: Date
    var invalidatedAt: Date?
    var invalidationReason: String?
    var apnsUnregisteredAt: APNSTimestamp?

    init(_ device: Device) {
        id = device.id
        tokenSuffix = String(device.token.hex.suffix(8))
        environment = device.environment.rawValue
        languages = device.languages.map(\.value)
        authorization = device.authorization
        timeZone = device.timeZone
        userID = device.userID
        attributes = device.attributes
        bucket = device.bucket
        valid = device.isValid
        registeredAt = device.registeredAt
        createdAt = device.createdAt
        invalidatedAt = device.invalidatedAt
        invalidationReason = device.invalidationReason
        apnsUnregisteredAt = device.apnsUnregisteredAt
    }
}

struct DevicePageResponse: ResponseEncodable {
    var devices: [DeviceResponse]
    /// Pass as `cursor` for the next page; absent on the last page.
    var nextCursor: String?
}
