import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// A campaign as the API shows it: its public ID as `id`, its app by bundle ID, its fields as
/// ``CampaignFields`` shows them, live counters.
struct CampaignResponse: ResponseEncodable {
    var id: String
    var app: String
    var fields: CampaignFields
    var state: String
    /// Pinned when scheduled.
    var templateVersion: Int?
    var counters: CountersResponse
    var failureReason: String?
    var createdAt: Date
    var updatedAt: Date
    var startedAt: Date?
    var finishedAt: Date?
    /// The recurring campaign this is a run of.
    var series: SeriesLinkResponse?

    struct SeriesLinkResponse: Encodable {
        var id: String
        var run: Int
    }

    enum CodingKeys: String, CodingKey {
        case id, app, state, templateVersion, counters, failureReason, createdAt, updatedAt, startedAt, finishedAt, series
    }

    init(_ campaign: Campaign, bundleID: String) {
        id = campaign.publicID.canonicalString
        app = bundleID
        fields = CampaignFields(campaign.definition)
        state = campaign.state.rawValue
        templateVersion = campaign.templateVersion
        counters = CountersResponse(campaign.counters)
        failureReason = campaign.failureReason
        createdAt = campaign.createdAt
        updatedAt = campaign.updatedAt
        startedAt = campaign.startedAt
        finishedAt = campaign.finishedAt
        series = campaign.series.map { SeriesLinkResponse(id: $0.id.canonicalString, run: $0.run) }
    }

    /// One object: the fields beside Herald's own members.
    func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(app, forKey: .app)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(templateVersion, forKey: .templateVersion)
        try container.encode(counters, forKey: .counters)
        try container.encodeIfPresent(failureReason, forKey: .failureReason)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(startedAt, forKey: .startedAt)
        try container.encodeIfPresent(finishedAt, forKey: .finishedAt)
        try container.encodeIfPresent(series, forKey: .series)
    }
}

/// `audienceSize == accepted + failed + skipped + deferred + unsent + heldOut + pending`, always.
struct CountersResponse: Encodable {
    var audienceSize: Int
    var sent: Int
    var accepted: Int
    var failed: Int
    var failedByReason: [String: Int]
    var invalidated: Int
    var skipped: Int
    var deferred: Int
    var unsent: Int
    var heldOut: Int
    var pending: Int
    /// The audience of the started campaign is still being counted: `audienceSize` and
    /// `pending` are not its final figures yet.
    var audienceCounting: Bool
    /// Some counters could not be read (a database worker is unavailable): the figures cover
    /// the parts that answered.
    var partial: Bool
    /// Recorded outcomes by message, in the campaign's order.
    var variants: [VariantCountersResponse]
    /// Progress by time zone, for a campaign sent in zones (local time, quiet hours).
    var zones: [ZoneResponse]

    init(_ counters: CampaignCounters) {
        audienceSize = counters.audienceSize
        sent = counters.sent
        accepted = counters.accepted
        failed = counters.failed
        failedByReason = counters.failedByReason
        invalidated = counters.invalidated
        skipped = counters.skipped
        deferred = counters.deferred
        unsent = counters.unsent
        heldOut = counters.heldOut
        pending = counters.pending
        audienceCounting = counters.audienceCounting
        partial = counters.partial
        variants = counters.variants.map(VariantCountersResponse.init)
        zones = counters.zones.map(ZoneResponse.init)
    }
}

/// `{"mode": "now"}`, or the local time a campaign reaches each device at.
struct DeliveryResponse: Encodable {
    var mode: String
    var date: String?
    var time: String?
    var latePolicy: String?
    var windowHours: Int?
    var bestTimeHoldoutPercent: Double?

    init(_ local: LocalDelivery?) {
        mode = local == nil ? "now" : local?.bestTime == nil ? "localTime" : "bestTime"
        date = local?.date
        time = local?.time
        latePolicy = local?.latePolicy.rawValue
        windowHours = local?.bestTime?.windowHours
        bestTimeHoldoutPercent = local?.bestTime.map { Double($0.holdoutBasisPoints) / 100 }
    }
}

struct ZoneResponse: Encodable {
    /// The devices' registered zone; absent for devices without one.
    var timeZone: String?
    /// The zone their clock is read in.
    var effectiveTimeZone: String
    var state: String
    /// When a waiting zone is due.
    var notBefore: Date?
    var devices: Int
    var done: Int

    init(_ zone: ZoneProgress) {
        timeZone = zone.timeZone.isEmpty ? nil : zone.timeZone
        effectiveTimeZone = zone.effectiveTimeZone
        state = zone.state.rawValue
        notBefore = zone.notBefore
        devices = zone.devices
        done = zone.done
    }
}

struct VariantCountersResponse: Encodable {
    var name: String
    var assigned: Int
    var accepted: Int
    var failed: Int
    var skipped: Int
    var deferred: Int
    var unsent: Int

    init(_ counters: VariantCounters) {
        name = counters.name
        assigned = counters.assigned
        accepted = counters.accepted
        failed = counters.failed
        skipped = counters.skipped
        deferred = counters.deferred
        unsent = counters.unsent
    }
}

struct CampaignPageResponse: ResponseEncodable {
    var campaigns: [CampaignResponse]
    /// Pass as `cursor` for the next page; absent on the last page.
    var nextCursor: String?
}

struct EstimateResponse: ResponseEncodable {
    var app: String
    /// Valid devices of the app that match the audience now.
    var devices: Int
    /// Of those, devices at one of the app's frequency caps now: a campaign would skip them.
    var overFrequencyCap: Int
}

/// One row of a campaign's ledger; the token shows only its last 8 hex digits.
struct DeliveryEntryResponse: Encodable {
    var deviceID: Int64
    var tokenSuffix: String?
    var userID: String?
    var outcome: String
    var status: Int?
    var reason: String?
    var apnsID: String?
    var language: String?
    /// The message the device was assigned; absent for the holdout.
    var variant: String?
    var recordedAt: Date

    init(_ entry: DeliveryLedgerEntry, messages: [CampaignVariant]) {
        deviceID = entry.record.deviceID
        tokenSuffix = entry.token.map { String($0.hex.suffix(8)) }
        userID = entry.userID
        outcome = entry.record.outcome.kind.rawValue
        status = entry.record.outcome.status
        reason = entry.record.outcome.reason
        apnsID = entry.record.apnsID?.canonicalString
        language = entry.record.language?.value
        variant = entry.record.variant.flatMap { messages.indices.contains($0) ? messages[$0].name : nil }
        recordedAt = entry.recordedAt
    }
}

struct DeliveryPageResponse: ResponseEncodable {
    var deliveries: [DeliveryEntryResponse]
    var nextCursor: String?
}

/// What a direct send (transactional or a campaign's test) did, recipient by recipient in
/// request order.
struct DirectSendResponse: ResponseEncodable {
    /// The transactional request's ID in the notifications ledger; absent for test sends.
    var requestID: String?
    var results: [Result]
    var summary: [String: Int]

    struct Result: Encodable {
        var tokenSuffix: String
        var deviceID: Int64?
        var outcome: String
        var status: Int?
        var reason: String?
        var apnsID: String?
        var language: String?
        var invalidated: Bool
    }

    init(requestID: UUID?, results: [DirectSendResult]) {
        self.requestID = requestID?.canonicalString
        self.results = results.map {
            Result(
                tokenSuffix: String($0.token.hex.suffix(8)), deviceID: $0.deviceID, outcome: $0.outcome.kind.rawValue,
                status: $0.outcome.status, reason: $0.outcome.reason, apnsID: $0.apnsID?.canonicalString,
                language: $0.language?.value, invalidated: $0.invalidated)
        }
        summary = Dictionary(grouping: results, by: \.outcome.kind.rawValue).mapValues(\.count)
    }
}
