import Foundation

/// Campaigns as users see them: drafts, lifecycle, counters and the ledger. The engine's side
/// (claiming and recording work) is ``CampaignWorkQueue``.
public protocol CampaignRepository: Sendable {
    /// Stores a new draft; throws the first `ValidationError` of ``CampaignDraft/validate()``.
    func create(_ draft: CampaignDraft, actor: String) async throws -> Campaign
    func get(id: Int64) async throws -> Campaign?
    func get(publicID: UUID) async throws -> Campaign?
    /// Newest first, by keyset.
    func list(_ query: CampaignListQuery) async throws -> CampaignPage
    /// Applies `patch` in one statement if the campaign is a draft; throws
    /// `CampaignError.invalidTransition(from:event: .edit)` otherwise; nil for an unknown campaign.
    func updateDraft(id: Int64, patch: CampaignPatch, actor: String) async throws -> Campaign?
    /// Applies `event` atomically (the row is locked, the state machine decides, its actions
    /// are performed, the new state written) and returns the campaign after it; nil for an
    /// unknown campaign. Throws `CampaignError.invalidTransition` when the state machine
    /// refuses, and a `ValidationError` on `templateName` when scheduling finds no template.
    func transition(id: Int64, event: CampaignEvent, actor: String) async throws -> Campaign?
    /// How many of the app's valid devices match `filter` now.
    func estimate(appID: Int64, filter: AudienceFilter) async throws -> Int
    /// The same count within about `budget` seconds: exact when the database counts that fast,
    /// else scaled up from a sample of the table (for the builder's live estimate).
    func estimateQuickly(appID: Int64, filter: AudienceFilter, budget: Double) async throws -> AudienceEstimate
    /// Of those, how many a campaign starting now would skip for the app's frequency caps.
    func estimateOverCap(appID: Int64, filter: AudienceFilter, caps: [FrequencyCap]) async throws -> Int
    /// Outcomes by language and sends by minute, summed over the campaign's chunks.
    func timeline(campaignID: Int64) async throws -> CampaignTimeline
    /// The campaign's ledger, by device ID.
    func deliveries(campaignID: Int64, query: DeliveryListQuery) async throws -> DeliveryPage
}

/// A page request over campaigns, newest first.
public struct CampaignListQuery: Sendable, Equatable {
    public static let defaultLimit = 50
    public static let maximumLimit = 200

    public var appID: Int64?
    /// Only campaigns of these apps (a scoped marketing key's); nil: every app.
    public var appIDs: [Int64]?
    public var state: CampaignState?
    /// The last campaign ID of the previous page.
    public var cursor: Int64?
    public var limit: Int

    public init(appID: Int64? = nil, state: CampaignState? = nil, cursor: Int64? = nil, limit: Int = Self.defaultLimit) {
        self.appID = appID
        self.state = state
        self.cursor = cursor
        self.limit = limit
    }
}

/// One page of campaigns and where the next one starts (nil at the end).
public struct CampaignPage: Sendable, Equatable {
    public var campaigns: [Campaign]
    public var nextCursor: Int64?

    public init(campaigns: [Campaign], nextCursor: Int64?) {
        self.campaigns = campaigns
        self.nextCursor = nextCursor
    }
}

/// How many devices an audience matches, and whether that is a count or an estimate.
public struct AudienceEstimate: Sendable, Equatable {
    public var devices: Int
    /// False when scaled up from a sample: the campaign's own count, taken when it starts, decides.
    public var exact: Bool

    public init(devices: Int, exact: Bool) {
        self.devices = devices
        self.exact = exact
    }
}
