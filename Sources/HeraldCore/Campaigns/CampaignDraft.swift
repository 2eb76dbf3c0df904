import APNSCore
import Foundation

/// A new campaign, as `POST /v1/campaigns` gives it (the API resolves the app first).
public struct CampaignDraft: Codable, Sendable, Equatable {
    /// Conversions count for the campaign that reached the device within a day before them.
    public static let defaultAttributionWindow = 86_400

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
    public var variants: [CampaignVariant]
    public var holdoutBasisPoints: Int
    /// Seconds.
    public var attributionWindow: Int
    public var localDelivery: LocalDelivery?
    public var quietHoursMode: QuietHoursMode

    public init(
        appID: Int64, name: String, notes: String? = nil, templateName: String,
        localization: Campaign.LocalizationMode = .server, variables: [String: PayloadValue] = [:],
        audience: AudienceFilter = AudienceFilter(), pushOptions: PushOptions = PushOptions(), sendAt: Date? = nil,
        rateLimit: Int? = nil, variants: [CampaignVariant] = [], holdoutBasisPoints: Int = 0,
        attributionWindow: Int = Self.defaultAttributionWindow, localDelivery: LocalDelivery? = nil,
        quietHoursMode: QuietHoursMode = .hold
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
        self.variants = variants
        self.holdoutBasisPoints = holdoutBasisPoints
        self.attributionWindow = attributionWindow
        self.localDelivery = localDelivery
        self.quietHoursMode = quietHoursMode
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
        errors += CampaignRules.check(variants: variants)
        errors += CampaignRules.check(holdoutBasisPoints: holdoutBasisPoints)
        errors += CampaignRules.check(attributionWindow: attributionWindow)
        errors += CampaignRules.check(localDelivery: localDelivery, sendAt: sendAt)
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
    /// `[]` removes the variants.
    public var variants: [CampaignVariant]?
    public var holdoutBasisPoints: Int?
    public var attributionWindow: Int?
    /// `.some(nil)` returns the campaign to sending at `sendAt` (or at once).
    public var localDelivery: LocalDelivery??
    public var quietHoursMode: QuietHoursMode?

    public init(
        name: String? = nil, notes: String?? = nil, templateName: String? = nil,
        localization: Campaign.LocalizationMode? = nil, variables: [String: PayloadValue]? = nil,
        audience: AudienceFilter? = nil, pushOptions: PushOptions? = nil, sendAt: Date?? = nil, rateLimit: Int?? = nil,
        variants: [CampaignVariant]? = nil, holdoutBasisPoints: Int? = nil, attributionWindow: Int? = nil,
        localDelivery: LocalDelivery?? = nil, quietHoursMode: QuietHoursMode? = nil
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
        self.variants = variants
        self.holdoutBasisPoints = holdoutBasisPoints
        self.attributionWindow = attributionWindow
        self.localDelivery = localDelivery
        self.quietHoursMode = quietHoursMode
    }

    /// The draft with these changes made: the one place a patch meets the fields it changes.
    public func applied(to draft: CampaignDraft) -> CampaignDraft {
        var draft = draft
        if let name { draft.name = name }
        if let notes { draft.notes = notes }
        if let templateName { draft.templateName = templateName }
        if let localization { draft.localization = localization }
        if let variables { draft.variables = variables }
        if let audience { draft.audience = audience }
        if let pushOptions { draft.pushOptions = pushOptions }
        if let sendAt { draft.sendAt = sendAt }
        if let rateLimit { draft.rateLimit = rateLimit }
        if let variants { draft.variants = variants }
        if let holdoutBasisPoints { draft.holdoutBasisPoints = holdoutBasisPoints }
        if let attributionWindow { draft.attributionWindow = attributionWindow }
        if let localDelivery { draft.localDelivery = localDelivery }
        if let quietHoursMode { draft.quietHoursMode = quietHoursMode }
        return draft
    }

    /// Every problem with the fields given, and with what they make of `draft` where fields
    /// depend on each other (a campaign is sent at `sendAt` or at a local time, not both).
    public func validate(against draft: CampaignDraft) -> [ValidationError] {
        var errors = validate()
        let result = applied(to: draft)
        if errors.isEmpty, result.localDelivery != nil, result.sendAt != nil {
            errors.append(
                ValidationError(
                    field: sendAt != nil ? "sendAt" : "delivery",
                    reason: "a campaign is sent at sendAt or at a local time, not both; clear the other with null"))
        }
        return errors
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
        if let variants { errors += CampaignRules.check(variants: variants) }
        if let holdoutBasisPoints { errors += CampaignRules.check(holdoutBasisPoints: holdoutBasisPoints) }
        if let attributionWindow { errors += CampaignRules.check(attributionWindow: attributionWindow) }
        if case .some(.some(let localDelivery)) = localDelivery {
            let sendAt: Date? = self.sendAt ?? nil
            errors += CampaignRules.check(localDelivery: localDelivery, sendAt: sendAt)
        }
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
        if let problem = StoredValueRules.problem(in: .object(variables), field: "variables") { return [problem] }
        guard variables.values.allSatisfy(\.isFinite) else {
            return [ValidationError(field: "variables", reason: "numbers must be finite")]
        }
        guard let size = try? CanonicalJSON.data(variables).count else {
            return [ValidationError(field: "variables", reason: "cannot be written as JSON")]
        }
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

    static func check(variants: [CampaignVariant]) -> [ValidationError] {
        guard !variants.isEmpty else { return [] }
        guard (AudienceSplit.minimumVariants...AudienceSplit.maximumVariants).contains(variants.count) else {
            return [
                ValidationError(
                    field: "variants",
                    reason: "an A/B test has \(AudienceSplit.minimumVariants) to \(AudienceSplit.maximumVariants) variants, got \(variants.count)")
            ]
        }
        var errors = [ValidationError]()
        var seen = Set<String>()
        for (index, variant) in variants.enumerated() {
            errors += prefixed("variants[\(index)]", variant.validate())
            if !seen.insert(variant.name.lowercased()).inserted {
                errors.append(ValidationError(field: "variants[\(index)].name", reason: "is the name of an earlier variant"))
            }
        }
        return errors
    }

    static func check(holdoutBasisPoints: Int) -> [ValidationError] {
        (0...AudienceSplit.maximumHoldout).contains(holdoutBasisPoints)
            ? [] : [ValidationError(field: "holdoutPercent", reason: "must be from 0 to 50")]
    }

    static let maximumAttributionWindow = 30 * 86_400

    static func check(attributionWindow: Int) -> [ValidationError] {
        (3600...maximumAttributionWindow).contains(attributionWindow) && attributionWindow % 3600 == 0
            ? [] : [ValidationError(field: "attributionWindowHours", reason: "must be a whole number of hours from 1 to 720")]
    }

    static func check(localDelivery: LocalDelivery?, sendAt: Date?) -> [ValidationError] {
        guard let localDelivery else { return [] }
        if sendAt != nil {
            return [ValidationError(field: "sendAt", reason: "a local-time campaign has its delivery time instead")]
        }
        return prefixed("delivery", localDelivery.validate(now: Date()))
    }

    /// Errors of a nested value, with the field paths below `prefix`.
    static func prefixed(_ prefix: String, _ errors: [ValidationError]) -> [ValidationError] {
        errors.map { ValidationError(field: "\(prefix).\($0.field)", reason: $0.reason) }
    }
}
