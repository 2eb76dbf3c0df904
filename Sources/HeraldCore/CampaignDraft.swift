import APNSCore
import Foundation

/// A new campaign, as `POST /v1/campaigns` gives it (the API resolves the app first).
public struct CampaignDraft: Sendable, Equatable {
    public var appID: Int64
    public var name: String
    public var notes: String?
    public var templateName: String
    public var localization: Campaign.LocalizationMode
    public var variables: [String: PayloadValue]
    public var audience: AudienceFilter
    public var pushOptions: PushOptions
    public var sendAt: Date?
    public var rateLimit: Int?

    public init(
        appID: Int64, name: String, notes: String? = nil, templateName: String,
        localization: Campaign.LocalizationMode = .server, variables: [String: PayloadValue] = [:],
        audience: AudienceFilter = AudienceFilter(), pushOptions: PushOptions = PushOptions(), sendAt: Date? = nil,
        rateLimit: Int? = nil
    ) {
        self.appID = appID
        self.name = name
        self.notes = notes
        self.templateName = templateName
        self.localization = localization
        self.variables = variables
        self.audience = audience
        self.pushOptions = pushOptions
        self.sendAt = sendAt
        self.rateLimit = rateLimit
    }

    /// Every problem, each naming its field (`name`, `audience.languages[1]`,
    /// `pushOptions.collapseID`); empty when the draft can be stored.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        errors += CampaignRules.check(name: name)
        if let notes { errors += CampaignRules.check(notes: notes) }
        errors += CampaignRules.check(templateName: templateName)
        errors += CampaignRules.check(variables: variables)
        errors += CampaignRules.prefixed("audience", audience.validate())
        errors += CampaignRules.prefixed("pushOptions", pushOptions.validate())
        if let rateLimit { errors += CampaignRules.check(rateLimit: rateLimit) }
        return errors
    }
}

/// Changes to a draft, as `PATCH /v1/campaigns/{id}` gives them: nil leaves a field as it is.
/// For the fields that may be empty, `.some(nil)` clears the field.
public struct CampaignPatch: Sendable, Equatable {
    public var name: String?
    public var notes: String??
    public var templateName: String?
    public var localization: Campaign.LocalizationMode?
    public var variables: [String: PayloadValue]?
    public var audience: AudienceFilter?
    public var pushOptions: PushOptions?
    public var sendAt: Date??
    public var rateLimit: Int??

    public init(
        name: String? = nil, notes: String?? = nil, templateName: String? = nil,
        localization: Campaign.LocalizationMode? = nil, variables: [String: PayloadValue]? = nil,
        audience: AudienceFilter? = nil, pushOptions: PushOptions? = nil, sendAt: Date?? = nil, rateLimit: Int?? = nil
    ) {
        self.name = name
        self.notes = notes
        self.templateName = templateName
        self.localization = localization
        self.variables = variables
        self.audience = audience
        self.pushOptions = pushOptions
        self.sendAt = sendAt
        self.rateLimit = rateLimit
    }

    /// Every problem with the fields given.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let name { errors += CampaignRules.check(name: name) }
        if case .some(.some(let notes)) = notes { errors += CampaignRules.check(notes: notes) }
        if let templateName { errors += CampaignRules.check(templateName: templateName) }
        if let variables { errors += CampaignRules.check(variables: variables) }
        if let audience { errors += CampaignRules.prefixed("audience", audience.validate()) }
        if let pushOptions { errors += CampaignRules.prefixed("pushOptions", pushOptions.validate()) }
        if case .some(.some(let rateLimit)) = rateLimit { errors += CampaignRules.check(rateLimit: rateLimit) }
        return errors
    }
}

/// The field rules drafts and patches share.
enum CampaignRules {
    static let maximumNameLength = 200
    static let maximumNotesLength = 10_000
    static let maximumVariablesBytes = 4096
    static let maximumRateLimit = 1_000_000

    static func check(name: String) -> [ValidationError] {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, TextRules.storedLength(name) <= maximumNameLength else {
            return [ValidationError(field: "name", reason: "must be 1 to \(maximumNameLength) characters, not only spaces")]
        }
        if let scalar = TextRules.forbiddenCharacter(in: name) { return [ValidationError(field: "name", reason: TextRules.reason(scalar))] }
        return []
    }

    static func check(notes: String) -> [ValidationError] {
        if let scalar = TextRules.forbiddenCharacter(in: notes) { return [ValidationError(field: "notes", reason: TextRules.reason(scalar))] }
        return TextRules.storedLength(notes) <= maximumNotesLength
            ? [] : [ValidationError(field: "notes", reason: "at most \(maximumNotesLength) characters")]
    }

    /// The templates table's rule: the name is also a folder name under templates/.
    static func check(templateName: String) -> [ValidationError] {
        let bytes = Array(templateName.utf8)
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || (!first && (byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")))
        }
        guard let first = bytes.first, bytes.count <= 64, allowed(first, first: true),
            bytes.dropFirst().allSatisfy({ allowed($0, first: false) })
        else {
            return [
                ValidationError(
                    field: "templateName",
                    reason: "must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit")
            ]
        }
        return []
    }

    static func check(variables: [String: PayloadValue]) -> [ValidationError] {
        if let (field, scalar) = TextRules.firstForbidden(in: .object(variables), at: "variables") {
            return [ValidationError(field: field, reason: TextRules.reason(scalar))]
        }
        guard variables.values.allSatisfy(\.isFinite) else {
            return [ValidationError(field: "variables", reason: "numbers must be finite")]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let size = (try? encoder.encode(variables).count) ?? 0
        guard size <= maximumVariablesBytes else {
            return [ValidationError(field: "variables", reason: "at most \(maximumVariablesBytes) bytes of JSON, got \(size)")]
        }
        return []
    }

    static func check(rateLimit: Int) -> [ValidationError] {
        (1...maximumRateLimit).contains(rateLimit)
            ? []
            : [ValidationError(field: "rateLimit", reason: "must be 1 to \(maximumRateLimit) notifications per second")]
    }

    /// Errors of a nested value, with the field paths below `prefix`.
    static func prefixed(_ prefix: String, _ errors: [ValidationError]) -> [ValidationError] {
        errors.map { ValidationError(field: "\(prefix).\($0.field)", reason: $0.reason) }
    }
}
