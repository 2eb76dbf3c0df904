import APNSCore
import Foundation

/// A notification campaign, as stored, with its live counters.
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
    /// What URLs show, and the namespace of the campaign's apns-ids.
    public var publicID: UUID
    public var appID: Int64
    public var name: String
    public var notes: String?
    public var state: CampaignState
    public var templateName: String
    /// Pinned when the campaign is scheduled; nil for a draft.
    public var templateVersion: Int?
    public var localization: LocalizationMode
    /// Send-time variables (`vars.NAME` in templates).
    public var variables: [String: PayloadValue]
    public var audience: AudienceFilter
    public var pushOptions: PushOptions
    /// When to start; nil: as soon as it is scheduled.
    public var sendAt: Date?
    /// Notifications per second; nil: as fast as APNs takes them.
    public var rateLimit: Int?
    /// The A/B test's messages (2 to 5); empty: the campaign sends its own message alone.
    public var variants: [CampaignVariant]
    /// The share of the audience held out (no notification, a `heldOut` row), in basis points.
    public var holdoutBasisPoints: Int
    /// How long after receiving a notification (or being held out) a conversion counts for
    /// the campaign.
    public var attributionWindow: Int
    /// Set for a local-time campaign: each device gets it at this wall-clock time in its zone.
    public var localDelivery: LocalDelivery?
    /// What the campaign does about the app's quiet hours.
    public var quietHoursMode: QuietHoursMode
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

    public struct SeriesLink: Sendable, Equatable {
        public var id: UUID
        public var run: Int

        public init(id: UUID, run: Int) {
            self.id = id
            self.run = run
        }
    }

    public init(
        id: Int64, publicID: UUID, appID: Int64, name: String, notes: String?, state: CampaignState,
        templateName: String, templateVersion: Int?, localization: LocalizationMode, variables: [String: PayloadValue],
        audience: AudienceFilter, pushOptions: PushOptions, sendAt: Date?, rateLimit: Int?, audienceBound: Int64?,
        counters: CampaignCounters, failureReason: String?, createdAt: Date, updatedAt: Date, startedAt: Date?,
        finishedAt: Date?, variants: [CampaignVariant] = [], holdoutBasisPoints: Int = 0,
        attributionWindow: Int = CampaignDraft.defaultAttributionWindow, localDelivery: LocalDelivery? = nil,
        quietHoursMode: QuietHoursMode = .hold, quietHours: QuietHours? = nil
    ) {
        self.id = id
        self.publicID = publicID
        self.appID = appID
        self.name = name
        self.notes = notes
        self.state = state
        self.templateName = templateName
        self.templateVersion = templateVersion
        self.localization = localization
        self.variables = variables
        self.audience = audience
        self.pushOptions = pushOptions
        self.sendAt = sendAt
        self.rateLimit = rateLimit
        self.audienceBound = audienceBound
        self.counters = counters
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.variants = variants
        self.holdoutBasisPoints = holdoutBasisPoints
        self.attributionWindow = attributionWindow
        self.localDelivery = localDelivery
        self.quietHoursMode = quietHoursMode
        self.quietHours = quietHours
    }

    /// The apns-id of this campaign's notification to a device: UUIDv5 of the campaign's public
    /// ID and the device ID in decimal. A resend after a crash carries the same ID (docs/rules.md rule 2).
    public func apnsID(forDevice deviceID: Int64) -> UUID {
        UUID.version5(namespace: publicID, name: String(deviceID))
    }

    /// The `apns-collapse-id` every notification of the campaign carries: the campaign's own,
    /// or its public ID (36 bytes, within APNs's 64), so a resent notification replaces the first.
    public var collapseID: String {
        collapseID(for: pushOptions)
    }

    /// The collapse ID of a message sent with `options` (a variant may set its own).
    public func collapseID(for options: PushOptions) -> String {
        options.collapseID ?? publicID.canonicalString
    }
}
