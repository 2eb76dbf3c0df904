import APNSCore
import Foundation

/// A notification campaign, as stored, with its live counters.
///
/// What the campaign sends, to whom and how is its ``definition``, the draft it was made from
/// with its edits; its members read through the campaign (`campaign.name` is
/// `campaign.definition.name`), so a field added to ``CampaignDraft`` is a field of every
/// campaign. The rest is what Herald adds: identity, state, pinned template version, counters,
/// times.
@dynamicMemberLookup
public struct Campaign: Sendable, Equatable {
    /// How the text reaches the device (HeraldTemplates renders accordingly).
    public enum LocalizationMode: String, Codable, CaseIterable, Sendable {
        /// Herald sends finished text in the negotiated language.
        case server
        /// Herald sends `loc-key`/`loc-args` and the app's own strings do the rest.
        case client
    }

    /// Herald's internal identifier.
    public var id: Int64
    /// What URLs show (and the namespace of a campaign's apns-ids from before migration 0036).
    public var publicID: UUID
    /// The campaign's fields as its author gave them (with its audience as the store read it:
    /// a Live Activity start's token type, a started campaign's segment time).
    public var definition: CampaignDraft
    public var state: CampaignState
    /// Pinned when the campaign is scheduled; nil for a draft.
    public var templateVersion: Int?
    /// The app's quiet hours as they were when the campaign started (nil when it has none or the
    /// campaign ignores them).
    public var quietHours: QuietHours?
    /// The app's frequency caps as they were when the campaign started.
    public var frequencyCaps: [FrequencyCap] = []
    /// The highest device ID when the campaign started: devices registered later are not in
    /// its audience. Nil until it starts.
    public var audienceBound: Int64?
    public var counters: CampaignCounters
    public var failureReason: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The recurring campaign this is a run of, and its run number.
    public var series: SeriesLink?
    /// What makes the campaign's apns-ids, under its app's key; nil for a campaign created
    /// before Herald enciphered them (migration 0036), which keeps its UUIDv5 ids.
    public var apnsIDCipher: APNSIDCipher?

    public struct SeriesLink: Sendable, Equatable {
        public var id: UUID
        public var run: Int

        public init(id: UUID, run: Int) {
            self.id = id
            self.run = run
        }
    }

    /// A member of the definition: `campaign.audience`, `campaign.variants`.
    public subscript<Value>(dynamicMember member: WritableKeyPath<CampaignDraft, Value>) -> Value {
        get { definition[keyPath: member] }
        set { definition[keyPath: member] = newValue }
    }

    public init(
        id: Int64, publicID: UUID, definition: CampaignDraft, state: CampaignState, templateVersion: Int?,
        audienceBound: Int64?, counters: CampaignCounters, failureReason: String?, createdAt: Date, updatedAt: Date,
        startedAt: Date?, finishedAt: Date?, quietHours: QuietHours? = nil
    ) {
        self.id = id
        self.publicID = publicID
        self.definition = definition
        self.state = state
        self.templateVersion = templateVersion
        self.audienceBound = audienceBound
        self.counters = counters
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.quietHours = quietHours
    }

    /// A campaign from its fields one by one (tests and fixtures).
    public init(
        id: Int64, publicID: UUID, appID: Int64, name: String, notes: String?, state: CampaignState,
        templateName: String, templateVersion: Int?, localization: LocalizationMode, variables: [String: PayloadValue],
        audience: AudienceFilter, pushOptions: PushOptions, sendAt: Date?, rateLimit: Int?, audienceBound: Int64?,
        counters: CampaignCounters, failureReason: String?, createdAt: Date, updatedAt: Date, startedAt: Date?,
        finishedAt: Date?, variants: [CampaignVariant] = [], holdoutBasisPoints: Int = 0,
        attributionWindow: Int = CampaignDraft.defaultAttributionWindow, localDelivery: LocalDelivery? = nil,
        quietHoursMode: QuietHoursMode = .hold, quietHours: QuietHours? = nil
    ) {
        self.init(
            id: id, publicID: publicID,
            definition: CampaignDraft(
                appID: appID, name: name, notes: notes, templateName: templateName, localization: localization,
                variables: variables, audience: audience, pushOptions: pushOptions, sendAt: sendAt, rateLimit: rateLimit,
                variants: variants, holdoutBasisPoints: holdoutBasisPoints, attributionWindow: attributionWindow,
                localDelivery: localDelivery, quietHoursMode: quietHoursMode),
            state: state, templateVersion: templateVersion, audienceBound: audienceBound, counters: counters,
            failureReason: failureReason, createdAt: createdAt, updatedAt: updatedAt, startedAt: startedAt,
            finishedAt: finishedAt, quietHours: quietHours)
    }

    /// The apns-id of this campaign's notification to a device: the campaign's and the device's
    /// IDs enciphered (``APNSIDCipher``), or, for a campaign without a cipher, UUIDv5 of the
    /// campaign's public ID and the device ID in decimal. A resend after a crash carries the
    /// same ID (docs/rules.md rule 2).
    public func apnsID(forDevice deviceID: Int64) -> UUID {
        apnsIDCipher?.apnsID(campaignID: id, deviceID: deviceID)
            ?? UUID.version5(namespace: publicID, name: String(deviceID))
    }

    /// The `apns-collapse-id` every notification of the campaign carries: the campaign's own,
    /// or its public ID (36 bytes, within APNs's 64), so a resent notification replaces the first.
    public var collapseID: String {
        collapseID(for: definition.pushOptions)
    }

    /// The collapse ID of a message sent with `options` (a variant may set its own).
    public func collapseID(for options: PushOptions) -> String {
        options.collapseID ?? publicID.canonicalString
    }
}
