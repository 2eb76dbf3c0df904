import APNSCore
import Foundation
import HeraldCore

/// A campaign's fields as `POST /v1/campaigns`, `PATCH /v1/campaigns/{id}` and a series'
/// `campaign` take them. Every member is optional here: a new draft requires its name and
/// template (``draft(app:)``), a patch changes what it gives. `null` clears `notes`, `sendAt`,
/// `rateLimit`, `delivery` and the `variants`.
struct CampaignBody: Decodable {
    /// The app's bundle ID: given when a campaign is created, never changed.
    var app: String?
    var name: String?
    var notes: PatchField<String>
    var templateName: String?
    var localization: Campaign.LocalizationMode?
    var variables: [String: PayloadValue]?
    var audience: AudienceBody?
    var pushOptions: PushOptions?
    var sendAt: PatchField<Date>
    var rateLimit: PatchField<Int>
    var variants: PatchField<[VariantBody]>
    var holdoutPercent: Percent?
    var attributionWindowHours: Int?
    var delivery: PatchField<DeliveryBody>
    var quietHours: QuietHoursMode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case app, name, notes, templateName, localization, variables, audience, pushOptions, sendAt, rateLimit, variants
        case holdoutPercent, attributionWindowHours, delivery, quietHours
    }

    /// The draft these fields describe, in `app`, every rule checked (a 422 listing them all).
    func draft(app: App) throws -> CampaignDraft {
        let patch = try self.patch()
        guard let name = patch.name else { throw Problem.invalidField("name", "is required") }
        guard let templateName = patch.templateName else { throw Problem.invalidField("templateName", "is required") }
        let draft = patch.applied(to: CampaignDraft(appID: app.id, name: name, templateName: templateName))
        try JSONFields.check(draft.validate(), what: "campaign")
        return draft
    }

    /// The changes these fields make to a draft (its rules are the store's to check against it).
    func patch() throws -> CampaignPatch {
        var patch = CampaignPatch(
            name: name, notes: notes.change, templateName: templateName, localization: localization,
            variables: variables, audience: try audience?.filter(field: "audience"), pushOptions: pushOptions,
            sendAt: sendAt.change, rateLimit: rateLimit.change, holdoutBasisPoints: holdoutPercent?.basisPoints,
            localDelivery: delivery.change.map { $0?.delivery }, quietHoursMode: quietHours)
        if let variants = variants.change { patch.variants = try VariantBody.variants(variants ?? []) }
        if let hours = attributionWindowHours {
            guard (1...720).contains(hours) else {
                throw Problem.invalidField("attributionWindowHours", "must be a whole number of hours from 1 to 720")
            }
            patch.attributionWindow = hours * 3600
        }
        return patch
    }
}

/// A draft as the API shows it, in the members ``CampaignBody`` reads: in a campaign
/// (``CampaignResponse``) and as the campaign a series' runs copy (without the name and the
/// delivery, which each run sets).
struct CampaignFields: Encodable {
    var name: String?
    var notes: String?
    var templateName: String
    var localization: String
    var variables: [String: PayloadValue]
    var audience: AudienceFilter
    var pushOptions: PushOptions
    var sendAt: Date?
    var rateLimit: Int?
    /// The A/B test's messages; empty for a campaign that sends one message.
    var variants: [CampaignVariant]
    var holdoutPercent: Double
    var attributionWindowHours: Int
    var delivery: DeliveryResponse?
    var quietHours: String

    init(_ draft: CampaignDraft) {
        name = draft.name
        notes = draft.notes
        templateName = draft.templateName
        localization = draft.localization.rawValue
        variables = draft.variables
        audience = draft.audience
        // Herald's own narrowing for a Live Activity start (its push options say it), the
        // moment a segment counts from and a saved segment's pinned conditions are not the
        // caller's filter.
        audience.startTokenType = nil
        audience.segmentTime = nil
        audience.savedSegmentDefinition = nil
        pushOptions = draft.pushOptions
        sendAt = draft.sendAt
        rateLimit = draft.rateLimit
        variants = draft.variants
        holdoutPercent = Double(draft.holdoutBasisPoints) / 100
        attributionWindowHours = draft.attributionWindow / 3600
        delivery = DeliveryResponse(draft.localDelivery)
        quietHours = draft.quietHoursMode.rawValue
    }

    /// The campaign a series' runs copy: what each run sets is left out.
    static func seriesTemplate(_ draft: CampaignDraft) -> CampaignFields {
        var fields = CampaignFields(draft)
        fields.name = nil
        fields.sendAt = nil
        fields.delivery = nil
        return fields
    }
}

/// One message of an A/B test. Without a name it is called by its letter (A, B, …), without a
/// weight it weighs 1.
struct VariantBody: Decodable {
    var name: String?
    var templateName: String?
    var templateVersion: Int?
    var variables: [String: PayloadValue]?
    var pushOptions: PushOptions?
    var weight: Int?

    static func variants(_ bodies: [VariantBody]) throws -> [CampaignVariant] {
        guard bodies.count <= AudienceSplit.maximumVariants else {
            throw Problem.invalidField(
                "variants", "an A/B test has 2 to \(AudienceSplit.maximumVariants) variants, got \(bodies.count)")
        }
        return bodies.enumerated().map { index, body in
            CampaignVariant(
                name: body.name ?? String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index))),
                templateName: body.templateName, templateVersion: body.templateVersion, variables: body.variables,
                pushOptions: body.pushOptions, weight: body.weight ?? 1)
        }
    }
}

/// A share of 0 to 50 percent, kept in basis points (2.5 % is 250).
struct Percent: Decodable {
    var basisPoints: Int

    init(from decoder: any Decoder) throws {
        let percent = try decoder.singleValueContainer().decode(Double.self)
        guard percent.isFinite, (0...50).contains(percent) else {
            throw DecodingError.invalid("must be a number from 0 to 50", in: decoder)
        }
        basisPoints = Int((percent * 100).rounded())
    }
}

/// `{"mode": "now"}`: at `sendAt`, or at once; `{"mode": "localTime", "date": "2026-12-01",
/// "time": "10:00", "latePolicy": "send" | "skip"}`: at that time in each device's zone;
/// `{"mode": "bestTime", "date", "time", "windowHours", "bestTimeHoldoutPercent"}`: at each
/// device's best hour in the window.
struct DeliveryBody: Decodable {
    var delivery: LocalDelivery?

    enum CodingKeys: String, CodingKey {
        case mode, date, time, latePolicy, windowHours, bestTimeHoldoutPercent
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .mode) {
        case "now":
            delivery = nil
        case "localTime":
            delivery = LocalDelivery(
                date: try container.decode(String.self, forKey: .date), time: try container.decode(String.self, forKey: .time),
                latePolicy: try container.decodeIfPresent(LocalDelivery.LatePolicy.self, forKey: .latePolicy) ?? .send)
        case "bestTime":
            let policy = try container.decodeIfPresent(LocalDelivery.LatePolicy.self, forKey: .latePolicy) ?? .send
            guard let hours = try container.decodeIfPresent(Int.self, forKey: .windowHours) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .windowHours, in: container, debugDescription: "is required: the window's length, 1 to 24 hours")
            }
            let holdout = try container.decodeIfPresent(Percent.self, forKey: .bestTimeHoldoutPercent)?.basisPoints ?? 0
            delivery = LocalDelivery(
                date: try container.decode(String.self, forKey: .date),
                time: try container.decodeIfPresent(String.self, forKey: .time) ?? "00:00", latePolicy: policy,
                bestTime: BestTimeWindow(windowHours: hours, holdoutBasisPoints: holdout))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .mode, in: container, debugDescription: "must be now, localTime or bestTime")
        }
    }
}

/// An audience as callers give it: the conditions of ``AudienceFilter`` that are theirs to set
/// (not the ones Herald fills in), with a segment read by its own rules.
struct AudienceBody: Decodable {
    var environment: APNSEnvironment?
    var languages: [String]?
    var attributes: [String: AudienceFilter.AttributeCondition]?
    var userIDs: [String]?
    var registeredSince: Date?
    var registeredBefore: Date?
    var authorization: AudienceFilter.AuthorizationCondition?
    var timeZones: [String]?
    var segment: PayloadValue?
    var savedSegment: SegmentReference?

    /// The filter; a segment's problems are named below `field` (`audience.segment.all[2]`).
    func filter(field: String) throws(ValidationError) -> AudienceFilter {
        var filter = AudienceFilter(
            environment: environment, languages: languages, attributes: attributes, userIDs: userIDs,
            registeredSince: registeredSince, registeredBefore: registeredBefore, authorization: authorization,
            timeZones: timeZones)
        if let segment, segment != .null { filter.segment = try Segment(json: segment, path: "\(field).segment") }
        filter.savedSegment = savedSegment
        return filter
    }
}
