import APNSCore
import Foundation
import HeraldCore

/// Reads a registration from parsed JSON, naming the exact field that is wrong. Unknown keys
/// are refused, so a misspelt field cannot be silently ignored.
enum RegistrationInput {
    static let fields: Set<String> = ["environment", "languages", "authorization", "timeZone", "userID", "attributes"]
    static let authorizationFields: Set<String> = ["status", "alert", "badge", "sound", "criticalAlert", "timeSensitive"]


    static func parse(
        _ object: [String: PayloadValue], defaultEnvironment: APNSEnvironment, extraFields: Set<String> = []
    ) throws(ValidationError) -> DeviceRegistration {
        try JSONFields.refuseUnknown(object, known: fields.union(extraFields))
        var environment = defaultEnvironment
        switch object["environment"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let value = APNSEnvironment(rawValue: text) else {
                throw ValidationError(field: "environment", reason: "must be sandbox or production")
            }
            environment = value
        default: throw ValidationError(field: "environment", reason: "must be sandbox or production")
        }
        return try DeviceRegistration(
            environment: environment,
            languages: try languages(object["languages"]),
            authorization: try authorization(object["authorization"]),
            timeZone: try optionalString(object["timeZone"], field: "timeZone"),
            userID: try optionalString(object["userID"], field: "userID"),
            attributes: try attributes(object["attributes"]))
    }

    private static func languages(_ value: PayloadValue?, field: String = "languages") throws(ValidationError) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            var tags = [String]()
            for (index, item) in items.enumerated() {
                guard case .string(let tag) = item else {
                    throw ValidationError(field: "\(field)[\(index)]", reason: "must be a string such as \"pt-BR\"")
                }
                tags.append(tag)
            }
            return tags
        default:
            throw ValidationError(field: field, reason: "must be an array of BCP 47 tags, most preferred first")
        }
    }

    /// Languages as valid tags, most preferred first (template previews); `field` names the
    /// array in errors.
    static func languageTags(_ value: PayloadValue?, field: String) throws(ValidationError) -> [LanguageTag] {
        let texts = try languages(value, field: field)
        guard texts.count <= DeviceRegistration.maximumLanguages else {
            throw ValidationError(
                field: field, reason: "at most \(DeviceRegistration.maximumLanguages) languages, got \(texts.count)")
        }
        var tags = [LanguageTag]()
        for (index, text) in texts.enumerated() {
            guard let tag = LanguageTag(text) else {
                throw ValidationError(
                    field: "\(field)[\(index)]", reason: "not a BCP 47 language tag (e.g. en, pt-BR, zh-Hant-HK)")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// Flags left out of an authorized, provisional or ephemeral device default to on (alert,
    /// badge, sound) or off (critical alert, time sensitive, which need extra permission).
    /// `field` names the object in errors (a registration's `authorization`, a preview's
    /// `recipients[0].authorization`).
    static func authorization(_ value: PayloadValue?, field: String = "authorization") throws(ValidationError)
        -> AuthorizationSettings
    {
        let object: [String: PayloadValue]
        switch value {
        case nil, .null?: return .notDetermined
        case .object(let fields)?: object = fields
        default: throw ValidationError(field: field, reason: "must be an object with a status")
        }
        try JSONFields.refuseUnknown(object, known: authorizationFields, prefix: field)
        let statuses = AuthorizationSettings.Status.allCases.map(\.rawValue)
        guard case .string(let text)? = object["status"], let status = AuthorizationSettings.Status(rawValue: text) else {
            throw ValidationError(field: "\(field).status", reason: "must be one of \(statuses.joined(separator: ", "))")
        }
        let allowed = status == .authorized || status == .provisional || status == .ephemeral
        func flag(_ name: String, default fallback: Bool) throws(ValidationError) -> Bool {
            switch object[name] {
            case nil, .null?: return fallback
            case .bool(let value)?: return value
            default: throw ValidationError(field: "\(field).\(name)", reason: "must be true or false")
            }
        }
        return AuthorizationSettings(
            status: status,
            alert: try flag("alert", default: allowed),
            badge: try flag("badge", default: allowed),
            sound: try flag("sound", default: allowed),
            criticalAlert: try flag("criticalAlert", default: false),
            timeSensitive: try flag("timeSensitive", default: false))
    }

    private static func optionalString(_ value: PayloadValue?, field: String) throws(ValidationError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ValidationError(field: field, reason: "must be a string or null")
        }
    }

    private static func attributes(_ value: PayloadValue?) throws(ValidationError) -> [String: PayloadValue] {
        switch value {
        case nil, .null?: return [:]
        case .object(let fields)?: return fields
        default: throw ValidationError(field: "attributes", reason: "must be a JSON object")
        }
    }
}
