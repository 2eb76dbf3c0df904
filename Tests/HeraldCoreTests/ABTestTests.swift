import APNSCore
import Foundation
import HeraldCore
import Testing

/// The pure parts of A/B tests: the audience split, the statistics, a variant's settings over
/// the campaign's, and the draft rules.
@Suite struct ABTestTests {
    static func campaign(variants: [CampaignVariant] = [], holdout: Int = 0) -> Campaign {
        Campaign(
            id: 1, publicID: UUID(uuidString: "8E1B2C3D-4F50-4A6B-9C7D-8E9FA0B1C2D3")!, appID: 1, name: "AB", notes: nil,
            state: .draft, templateName: "cart-reminder", templateVersion: 3, localization: .server,
            variables: ["storeName": "Acme", "percentOff": 10], audience: AudienceFilter(),
            pushOptions: PushOptions(category: "CART", custom: ["a": 1, "b": 2]), sendAt: nil, rateLimit: nil,
            audienceBound: nil, counters: CampaignCounters(), failureReason: nil, createdAt: Date(), updatedAt: Date(),
            startedAt: nil, finishedAt: nil, variants: variants, holdoutBasisPoints: holdout)
    }

    @Test func theSplitFollowsTheHoldoutAndTheWeightsOverManyDevices() {
        let campaign = Self.campaign(
            variants: [CampaignVariant(name: "A", weight: 1), CampaignVariant(name: "B", weight: 3)], holdout: 2000)
        var counts = [AudienceSplit.Assignment: Int]()
        let devices = 200_000
        for device in 0..<devices {
            counts[campaign.split.assignment(apnsID: campaign.apnsID(forDevice: Int64(device))), default: 0] += 1
        }
        // 20 % held out, then 1:3 of the rest: 20 %, 60 %. Four standard deviations is < 0.4 points.
        func share(_ assignment: AudienceSplit.Assignment) -> Double { Double(counts[assignment] ?? 0) / Double(devices) }
        #expect(abs(share(.heldOut) - 0.20) < 0.004)
        #expect(abs(share(.variant(0)) - 0.20) < 0.004)
        #expect(abs(share(.variant(1)) - 0.60) < 0.005)
        #expect(counts.count == 3)
    }

    @Test func aDeviceAlwaysLandsInTheSamePlace() {
        let split = AudienceSplit(holdoutBasisPoints: 1000, weights: [1, 1, 1])
        let other = AudienceSplit(holdoutBasisPoints: 1000, weights: [1, 1, 1])
        for device in 0..<1000 {
            let id = UUID.version5(namespace: .namespaceURL, name: String(device))
            #expect(split.assignment(apnsID: id) == other.assignment(apnsID: id))
        }
    }

    @Test func theEdgesOfTheSpaceFallWhereTheyShould() {
        let split = AudienceSplit(holdoutBasisPoints: 5000, weights: [1, 1])
        let lowest = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
        let highest = UUID(uuid: (0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x5F, 0xFF, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF))
        let middle = UUID(uuid: (0x80, 0, 0, 0, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
        #expect(split.assignment(apnsID: lowest) == .heldOut)
        #expect(split.assignment(apnsID: middle) == .variant(0))
        #expect(split.assignment(apnsID: highest) == .variant(1))
        let nobodyHeld = AudienceSplit(holdoutBasisPoints: 0, weights: [])
        #expect(nobodyHeld.assignment(apnsID: lowest) == .variant(0))
        #expect(nobodyHeld.assignment(apnsID: highest) == .variant(0))
    }

    @Test func aVariantsSettingsLieOverTheCampaigns() {
        let campaign = Self.campaign(variants: [
            CampaignVariant(name: "A"),
            CampaignVariant(
                name: "B", templateName: "flash-sale", templateVersion: 2, variables: ["percentOff": 30],
                pushOptions: PushOptions(timeToLive: 60, threadID: "sale", custom: ["b": 3])),
        ])
        let a = campaign.message(0)
        #expect(a.templateName == "cart-reminder" && a.templateVersion == 3)
        #expect(a.variables == ["storeName": "Acme", "percentOff": 10] && a.pushOptions == campaign.pushOptions)
        let b = campaign.message(1)
        #expect(b.templateName == "flash-sale" && b.templateVersion == 2)
        #expect(b.variables == ["storeName": "Acme", "percentOff": 30])
        #expect(b.pushOptions.category == "CART" && b.pushOptions.threadID == "sale" && b.pushOptions.timeToLive == 60)
        #expect(b.pushOptions.custom == ["a": 1, "b": 3])
        #expect(Self.campaign().messages.map(\.name) == [CampaignVariant.defaultName])
    }

    @Test func theWilsonIntervalMatchesItsFormula() throws {
        let tenOfHundred = try #require(Proportion(count: 10, total: 100).interval)
        #expect(abs(tenOfHundred.lowerBound - 0.0552291370606751) < 1e-12)
        #expect(abs(tenOfHundred.upperBound - 0.17436566150491345) < 1e-12)
        let none = try #require(Proportion(count: 0, total: 50).interval)
        #expect(none.lowerBound == 0 && abs(none.upperBound - 0.07134759913335872) < 1e-12)
        #expect(Proportion(count: 0, total: 0).interval == nil && Proportion(count: 0, total: 0).rate == nil)
    }

    @Test func theTwoProportionTestMatchesItsFormula() throws {
        let clear = try #require(ProportionComparison(Proportion(count: 50, total: 100), Proportion(count: 30, total: 100)))
        #expect(abs(clear.z - 2.886751345948129) < 1e-9 && abs(clear.pValue - 0.003892417122778627) < 1e-9)
        #expect(clear.significant && abs(clear.difference - 0.2) < 1e-12 && clear.interval.contains(0.2))
        let noise = try #require(ProportionComparison(Proportion(count: 120, total: 1000), Proportion(count: 100, total: 1000)))
        #expect(abs(noise.pValue - 0.1529177818639462) < 1e-9 && !noise.significant && noise.interval.contains(0))
        let flat = try #require(ProportionComparison(Proportion(count: 0, total: 10), Proportion(count: 0, total: 20)))
        #expect(flat.pValue == 1 && !flat.significant)
        #expect(ProportionComparison(Proportion(count: 0, total: 0), Proportion(count: 1, total: 2)) == nil)
    }

    @Test func draftsRefuseBadTestsNamingTheField() {
        func fields(_ variants: [CampaignVariant], holdout: Int = 0, window: Int = 86_400) -> [String] {
            CampaignDraft(
                appID: 1, name: "AB", templateName: "t", variants: variants, holdoutBasisPoints: holdout,
                attributionWindow: window
            ).validate().map(\.field)
        }
        let two = [CampaignVariant(name: "A"), CampaignVariant(name: "B")]
        #expect(fields(two).isEmpty)
        #expect(fields([CampaignVariant(name: "A")]) == ["variants"])
        #expect(fields((0..<6).map { CampaignVariant(name: "V\($0)") }) == ["variants"])
        #expect(
            fields([CampaignVariant(name: "A", weight: 0), CampaignVariant(name: "B", weight: 1001)])
                == ["variants[0].weight", "variants[1].weight"])
        #expect(fields([CampaignVariant(name: "A"), CampaignVariant(name: "a")]) == ["variants[1].name"])
        #expect(fields([CampaignVariant(name: ""), CampaignVariant(name: "B<script>")]) == ["variants[0].name", "variants[1].name"])
        #expect(fields(two, holdout: 5001) == ["holdoutPercent"] && fields(two, holdout: -1) == ["holdoutPercent"])
        #expect(fields([], holdout: 5000).isEmpty)
        #expect(fields(two, window: 0) == ["attributionWindowHours"] && fields(two, window: 3601) == ["attributionWindowHours"])
    }

    @Test func eventsFromTheFutureOrWithoutAWhoAreRefused() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let open = AppEvent(kind: .opened(apnsID: UUID()), occurredAt: now)
        #expect(open.validate(now: now).isEmpty)
        #expect(AppEvent(kind: .opened(apnsID: UUID()), occurredAt: now + 301).validate(now: now).map(\.field) == ["occurredAt"])
        #expect(AppEvent(kind: .opened(apnsID: UUID()), occurredAt: now - 366 * 86_400).validate(now: now).map(\.field) == ["occurredAt"])
        let anonymous = AppEvent(kind: .converted(name: "buy", value: nil), occurredAt: now)
        #expect(anonymous.validate(now: now).map(\.field) == ["token"])
        let infinite = AppEvent(kind: .converted(name: "buy", value: .infinity), occurredAt: now, userID: "u")
        #expect(infinite.validate(now: now).map(\.field) == ["value"])
        // The same open twice is one event; a conversion with the app's ID is that ID.
        let apnsID = UUID()
        #expect(
            AppEvent(kind: .opened(apnsID: apnsID), occurredAt: now).identity
                == AppEvent(kind: .opened(apnsID: apnsID), occurredAt: now + 60).identity)
        #expect(
            AppEvent(kind: .converted(name: "buy", value: 1), occurredAt: now, userID: "u", eventID: "e1").identity
                == AppEvent(kind: .converted(name: "buy", value: 1), occurredAt: now + 5, userID: "u", eventID: "e1").identity)
        #expect(
            AppEvent(kind: .converted(name: "buy", value: 1), occurredAt: now, userID: "u").identity
                != AppEvent(kind: .converted(name: "buy", value: 1), occurredAt: now + 5, userID: "u").identity)
    }
}
