import APNSCore
import Foundation

/// What an app backend says about a device when it registers it: validated, normalized,
/// ready to store.
public struct DeviceRegistration: Sendable, Equatable {
    public static let maximumLanguages = 10
    public static let maximumAttributesBytes = 4096
    public static let maximumUserIDLength = 256

    public var environment: APNSEnvironment
    public var languages: [LanguageTag]
    public var authorization: AuthorizationSettings
    public var timeZone: String?
    public var userID: String?
    public var attributes: [String: PayloadValue]
    /// `attributes` as compact JSON, measured against the 4 KiB limit and stored as is.
    public var attributesJSON: String

    /// Validates each field, throwing for the first that is wrong.
    public init(
        environment: APNSEnvironment,
        languages: [String],
        authorization: AuthorizationSettings,
        timeZone: String?,
        userID: String?,
        attributes: [String: PayloadValue]
    ) throws(ValidationError) {
        self.environment = environment
        guard languages.count <= Self.maximumLanguages else {
            throw ValidationError(
                field: "languages", reason: "at most \(Self.maximumLanguages) languages, got \(languages.count)")
        }
        var tags = [LanguageTag]()
        for (index, text) in languages.enumerated() {
            guard let tag = LanguageTag(text) else {
                throw ValidationError(
                    field: "languages[\(index)]", reason: "not a BCP 47 language tag (e.g. en, pt-BR, zh-Hant-HK)")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        self.languages = tags
        self.authorization = authorization
        if let timeZone {
            guard Self.isKnownTimeZone(timeZone) else {
                throw ValidationError(field: "timeZone", reason: "not an IANA time zone name (e.g. Europe/Paris)")
            }
        }
        self.timeZone = timeZone
        if let userID {
            guard Self.isValidUserID(userID) else { throw ValidationError(field: "userID", reason: Self.userIDRule) }
        }
        self.userID = userID
        if let problem = StoredValueRules.problem(in: .object(attributes), field: "attributes") { throw problem }
        self.attributes = attributes
        guard PayloadValue.object(attributes).isFinite, let data = try? CanonicalJSON.data(attributes) else {
            throw ValidationError(field: "attributes", reason: "cannot be written as JSON (numbers must be finite)")
        }
        guard data.count <= Self.maximumAttributesBytes else {
            throw ValidationError(
                field: "attributes",
                reason: "at most \(Self.maximumAttributesBytes) bytes of JSON, got \(data.count)")
        }
        self.attributesJSON = String(decoding: data, as: UTF8.self)
    }

    public static func isKnownTimeZone(_ name: String) -> Bool {
        // Foundation also accepts abbreviations and offsets ("GMT+2"); only IANA names are wanted.
        name.contains("/") || name == "UTC" ? TimeZone(identifier: name) != nil : false
    }

    /// What a user ID must be, as errors say it.
    public static let userIDRule = "must be 1 to \(maximumUserIDLength) characters without control characters"

    /// A user ID Herald stores: 1 to 256 characters, none of them a control character. Lookups
    /// by user ID (ledger, data requests) use the same rule, so nothing stored is unreachable.
    public static func isValidUserID(_ userID: String) -> Bool {
        !userID.isEmpty && TextRules.storedLength(userID) <= maximumUserIDLength
            && !userID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }
}
