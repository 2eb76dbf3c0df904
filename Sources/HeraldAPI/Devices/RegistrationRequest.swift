import APNSCore
import Foundation
import HeraldCore

/// A device's registration as the API takes it (`PUT …/devices/{token}`, each import line):
/// every field optional, checked by ``DeviceRegistration`` once read.
struct RegistrationRequest: Decodable {
    var environment: APNSEnvironment?
    var languages: [String]?
    var authorization: AuthorizationRequest?
    var timeZone: String?
    var userID: String?
    var attributes: [String: PayloadValue]?

    func registration(defaultEnvironment: APNSEnvironment) throws(ValidationError) -> DeviceRegistration {
        try DeviceRegistration(
            environment: environment ?? defaultEnvironment,
            languages: languages ?? [],
            authorization: authorization?.settings ?? .notDetermined,
            timeZone: timeZone,
            userID: userID,
            attributes: attributes ?? [:])
    }
}

/// The user's notification settings as the app reads them. Flags left out of an authorized,
/// provisional or ephemeral device default to on (alert, badge, sound) or off (critical alert,
/// time sensitive, which need extra permission).
struct AuthorizationRequest: Decodable {
    var status: AuthorizationSettings.Status
    var alert: Bool?
    var badge: Bool?
    var sound: Bool?
    var criticalAlert: Bool?
    var timeSensitive: Bool?

    var settings: AuthorizationSettings {
        let allowed = status == .authorized || status == .provisional || status == .ephemeral
        return AuthorizationSettings(
            status: status, alert: alert ?? allowed, badge: badge ?? allowed, sound: sound ?? allowed,
            criticalAlert: criticalAlert ?? false, timeSensitive: timeSensitive ?? false)
    }
}

/// One line of an import: a token beside a registration's fields.
struct ImportLineRequest: Decodable {
    var token: String
    var registration: RegistrationRequest

    enum CodingKeys: String, CodingKey { case token }

    init(from decoder: any Decoder) throws {
        token = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .token)
        // The same object: the registration reads its own keys, and only then are the rest unknown.
        registration = try RegistrationRequest(from: decoder)
    }
}
