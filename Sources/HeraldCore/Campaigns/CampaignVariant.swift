import APNSCore
import Foundation

/// One message of an A/B test: its own template (or version), variables and push options over
/// the campaign's, and a weight. A campaign without variants sends one message, which reports
/// call ``CampaignVariant/defaultName``.
public struct CampaignVariant: Codable, Sendable, Hashable {
    /// The name of the one message of a campaign without variants.
    public static let defaultName = "default"
    public static let maximumNameLength = 32
    public static let maximumWeight = 1000

    /// Shown in counters and reports; unique within the campaign.
    public var name: String
    /// Nil: the campaign's template.
    public var templateName: String?
    /// A version of the template; nil: its latest when the campaign is scheduled (pinned then).
    public var templateVersion: Int?
    /// Variables over the campaign's, name by name.
    public var variables: [String: PayloadValue]?
    /// Push options over the campaign's, setting by setting.
    public var pushOptions: PushOptions?
    /// The variant's share of the devices not held out, against the other weights.
    public var weight: Int

    public init(
        name: String, templateName: String? = nil, templateVersion: Int? = nil, variables: [String: PayloadValue]? = nil,
        pushOptions: PushOptions? = nil, weight: Int = 1
    ) {
        self.name = name
        self.templateName = templateName
        self.templateVersion = templateVersion
        self.variables = variables
        self.pushOptions = pushOptions
        self.weight = weight
    }

    /// Every problem, each naming its field below the variant (`weight`, `pushOptions.category`).
    func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: " ")
        }
        if bytes.isEmpty || bytes.count > Self.maximumNameLength || !allowed || bytes.first == UInt8(ascii: " ") {
            errors.append(
                ValidationError(
                    field: "name",
                    reason: "must be 1 to \(Self.maximumNameLength) characters of A-Z, a-z, 0-9, space, _ and -"))
        }
        if let templateName { errors += CampaignRules.check(templateName: templateName) }
        if let templateVersion, templateVersion < 1 {
            errors.append(ValidationError(field: "templateVersion", reason: "must be 1 or more"))
        }
        if let variables { errors += CampaignRules.check(variables: variables) }
        if let pushOptions { errors += CampaignRules.prefixed("pushOptions", pushOptions.validate()) }
        if !(1...Self.maximumWeight).contains(weight) {
            errors.append(ValidationError(field: "weight", reason: "must be a whole number from 1 to \(Self.maximumWeight)"))
        }
        return errors
    }
}

/// How a campaign splits its audience: a holdout share first, then the variants by weight.
/// A device's place is a pure function of its apns-id (campaign and device enciphered, or
/// UUIDv5 of them for a campaign from before migration 0036; so the same after a crash and on
/// every instance): the first 48 bits, read as a number in
/// [0, 2⁴⁸), fall in the holdout's slice or in one variant's.
public struct AudienceSplit: Sendable, Hashable {
    public static let maximumVariants = 5
    public static let minimumVariants = 2
    /// 50 %, in basis points.
    public static let maximumHoldout = 5000

    /// Where a device falls.
    public enum Assignment: Sendable, Hashable {
        case heldOut
        /// An index into the campaign's variants (0 for a campaign without variants).
        case variant(Int)
    }

    /// The held-out share in basis points (1/100 of a percent).
    public var holdoutBasisPoints: Int
    /// The weights of the variants, in order; one weight for a campaign without variants.
    public var weights: [Int]

    public init(holdoutBasisPoints: Int, weights: [Int]) {
        self.holdoutBasisPoints = holdoutBasisPoints
        self.weights = weights.isEmpty ? [1] : weights
    }

    private static let space: UInt64 = 1 << 48

    /// The device's place, from the apns-id the campaign sends it.
    public func assignment(apnsID: UUID) -> Assignment {
        let bytes = apnsID.uuid
        let position =
            UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24 | UInt64(bytes.3) << 16
            | UInt64(bytes.4) << 8 | UInt64(bytes.5)
        // The holdout takes [0, held); the rest is cut by weight. 128-bit products keep it exact.
        let held = Self.space / 10_000 * UInt64(holdoutBasisPoints)
        if position < held { return .heldOut }
        let total = UInt64(weights.reduce(0, +))
        let scaled = (position - held).multipliedFullWidth(by: total)
        let slot = UInt64(Self.space - held).dividingFullWidth(scaled).quotient
        var boundary: UInt64 = 0
        for (index, weight) in weights.enumerated() {
            boundary += UInt64(weight)
            if slot < boundary { return .variant(index) }
        }
        return .variant(weights.count - 1)
    }
}

extension Campaign {
    /// The campaign's messages: its variants, or its own message alone.
    public var messages: [CampaignVariant] {
        definition.variants.isEmpty ? [CampaignVariant(name: CampaignVariant.defaultName)] : definition.variants
    }

    /// How the campaign splits its audience.
    public var split: AudienceSplit {
        AudienceSplit(holdoutBasisPoints: definition.holdoutBasisPoints, weights: messages.map(\.weight))
    }

    /// What one message sends: the template, version, variables and push options after the
    /// variant's are laid over the campaign's.
    public func message(_ index: Int) -> ResolvedMessage {
        messages[index].message(
            templateName: definition.templateName, templateVersion: templateVersion, variables: definition.variables,
            pushOptions: definition.pushOptions)
    }
}

extension CampaignVariant {
    /// What this variant sends over a campaign's template, variables and push options (the
    /// campaign's, or a draft's in the console's preview): its own laid over them.
    public func message(
        templateName campaignTemplate: String, templateVersion campaignVersion: Int?, variables campaignVariables: [String: PayloadValue],
        pushOptions campaignOptions: PushOptions
    ) -> ResolvedMessage {
        var merged = campaignVariables
        merged.merge(variables ?? [:]) { _, new in new }
        return ResolvedMessage(
            name: name, templateName: templateName ?? campaignTemplate,
            templateVersion: templateVersion ?? (templateName == nil ? campaignVersion : nil),
            variables: merged, pushOptions: campaignOptions.overlaid(by: pushOptions))
    }
}

/// One of a campaign's messages with the campaign's settings applied.
public struct ResolvedMessage: Sendable, Hashable {
    public var name: String
    public var templateName: String
    public var templateVersion: Int?
    public var variables: [String: PayloadValue]
    public var pushOptions: PushOptions
}

extension PushOptions {
    /// These options with every setting `other` gives put in their place.
    public func overlaid(by other: PushOptions?) -> PushOptions {
        guard let other else { return self }
        var result = self
        if let value = other.pushType { result.pushType = value }
        if let value = other.priority { result.priority = value }
        if other.expiration != nil || other.timeToLive != nil {
            // The two exclude each other: the variant's choice replaces the campaign's.
            result.expiration = other.expiration
            result.timeToLive = other.timeToLive
        }
        if let value = other.collapseID { result.collapseID = value }
        if let value = other.threadID { result.threadID = value }
        if let value = other.category { result.category = value }
        if let value = other.interruptionLevel { result.interruptionLevel = value }
        if let value = other.relevanceScore { result.relevanceScore = value }
        if let value = other.custom { result.custom = (result.custom ?? [:]).merging(value) { _, new in new } }
        return result
    }
}
