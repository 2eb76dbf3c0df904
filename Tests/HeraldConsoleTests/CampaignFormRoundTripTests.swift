import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

@Suite struct CampaignFormRoundTripTests {
    /// A draft made through the API with every setting, including ones the builder has no
    /// input for.
    static func campaign() -> Campaign {
        let nextYear = Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
        return Campaign(
            id: 1, publicID: UUID(), appID: 7, name: "Spring <sale>", notes: "line one\nline two", state: .draft,
            templateName: "flash-sale", templateVersion: nil, localization: .client,
            variables: ["percentOff": .int(30), "endTime": .string("Sunday")],
            audience: AudienceFilter(
                environment: .production, languages: ["de", "pt-BR"], attributes: ["plan": .oneOf([.string("pro"), .string("team")])],
                userIDs: ["u-1", "u-2"], registeredSince: Date(timeIntervalSince1970: 1_767_323_040),
                authorization: AudienceFilter.AuthorizationCondition(
                    statuses: [.authorized, .provisional], allowsAlerts: true, sound: false, timeSensitive: true),
                timeZones: ["Europe/Berlin"]),
            pushOptions: PushOptions(
                priority: .powerAware, expiration: Date(timeIntervalSince1970: 1_900_000_000), collapseID: "sale",
                threadID: "promo", category: "SALE", interruptionLevel: .timeSensitive, relevanceScore: 0.5,
                custom: ["deepLink": .string("app://sale")]),
            sendAt: nil, rateLimit: 250, audienceBound: nil, counters: CampaignCounters(), failureReason: nil,
            createdAt: Date(), updatedAt: Date(), startedAt: nil, finishedAt: nil,
            variants: [
                CampaignVariant(name: "A", variables: ["percentOff": .int(30)], weight: 2),
                CampaignVariant(
                    name: "B", templateName: "cart-reminder", pushOptions: PushOptions(category: "CART"), weight: 1),
            ],
            holdoutBasisPoints: 750, attributionWindow: 48 * 3600,
            localDelivery: LocalDelivery(date: "\(nextYear)-03-01", time: "09:30", latePolicy: .skip), quietHoursMode: .skip)
    }

    @Test func editingADraftWithoutChangesKeepsEverySetting() throws {
        var campaign = Self.campaign()
        // The builder has no input for a segment yet: an edit keeps it.
        campaign.audience.segment = .all([
            .attribute("cartValue", .compare(.gt, .number(50))), .not(.opened(campaign: nil, within: Segment.DayWindow(days: 30))),
        ])
        var form = CampaignForm(CampaignForm.values(of: campaign, bundleID: "com.example"))
        let parsed = form.draft { $0 == "com.example" ? 7 : nil }
        let draft = CampaignForm.keepingHiddenSettings(of: campaign, in: try #require(parsed, "\(form.errors)"))
        #expect(draft.name == campaign.name)
        #expect(draft.notes == campaign.notes)
        #expect(draft.templateName == campaign.templateName)
        #expect(draft.localization == campaign.localization)
        #expect(draft.variables == campaign.variables)
        #expect(draft.audience == campaign.audience)
        #expect(draft.pushOptions == campaign.pushOptions)
        #expect(draft.sendAt == campaign.sendAt)
        #expect(draft.rateLimit == campaign.rateLimit)
        #expect(draft.variants == campaign.variants)
        #expect(draft.holdoutBasisPoints == campaign.holdoutBasisPoints)
        #expect(draft.attributionWindow == campaign.attributionWindow)
        #expect(draft.localDelivery == campaign.localDelivery)
        #expect(draft.quietHoursMode == campaign.quietHoursMode)
    }

    @Test func aFieldClearedInTheFormIsClearedInTheDraft() throws {
        let campaign = Self.campaign()
        var values = CampaignForm.values(of: campaign, bundleID: "com.example")
        values.set("rateLimit", "")
        values.set("audience.languages", "")
        values.set("schedule", "now")
        var form = CampaignForm(values)
        let draft = try #require(form.draft { _ in 7 }, "\(form.errors)")
        #expect(draft.rateLimit == nil && draft.audience.languages == nil && draft.localDelivery == nil)
    }
}
