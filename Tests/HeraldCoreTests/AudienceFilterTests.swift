import APNSCore
import Foundation
import HeraldCore
import Testing

@Suite struct AudienceFilterTests {
    func fields(_ errors: [ValidationError]) -> [String] { errors.map(\.field) }

    @Test func anEmptyFilterIsValid() {
        #expect(AudienceFilter().validate().isEmpty)
    }

    @Test func namesEachBadValueByItsPath() {
        let filter = AudienceFilter(
            languages: ["en", "not a tag"],
            attributes: [
                "plan": .equals(.object(["a": 1])),
                "country": .oneOf(["DE", .array([])]),
                "tier": .oneOf([]),
            ],
            userIDs: ["u-1", ""],
            registeredSince: Date(timeIntervalSince1970: 2_000),
            registeredBefore: Date(timeIntervalSince1970: 1_000),
            authorization: AudienceFilter.AuthorizationCondition(statuses: []),
            timeZones: ["Europe/Paris", "CEST"])
        #expect(
            fields(filter.validate()) == [
                "languages[1]", "attributes.country.in[1]", "attributes.plan", "attributes.tier.in", "userIDs[1]",
                "registeredBefore", "authorization.statuses", "timeZones[1]",
            ])
    }

    @Test func limitsListSizes() {
        let filter = AudienceFilter(
            attributes: Dictionary(uniqueKeysWithValues: (0...50).map { ("k\($0)", AudienceFilter.AttributeCondition.equals(.int($0))) }),
            userIDs: (0...1000).map { "u\($0)" })
        #expect(fields(filter.validate()) == ["attributes", "userIDs"])
    }

    @Test func emptyListsAreRefusedBecauseTheyWouldMatchNothing() {
        #expect(fields(AudienceFilter(languages: []).validate()) == ["languages"])
        #expect(fields(AudienceFilter(timeZones: []).validate()) == ["timeZones"])
    }

    @Test func bareLanguagesMatchBySubtagAndLongerTagsExactly() {
        let filter = AudienceFilter(languages: ["pt", "EN_gb", "zh-Hant", "pt", "bad tag"])
        let match = filter.languageMatch
        #expect(match.languages == ["pt"])
        #expect(match.tags == ["en-GB", "zh-Hant"])
    }

    @Test func attributeConditionsReadEqualityAndMembershipFromJSON() throws {
        let json = #"{"attributes":{"country":{"in":["DE","AT"]},"plan":"pro","seats":3},"environment":"production"}"#
        let filter = try JSONDecoder().decode(AudienceFilter.self, from: Data(json.utf8))
        #expect(filter.environment == .production)
        #expect(filter.attributes?["country"] == .oneOf(["DE", "AT"]))
        #expect(filter.attributes?["plan"] == .equals("pro"))
        #expect(filter.attributes?["seats"] == .equals(3))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let again = try JSONDecoder().decode(AudienceFilter.self, from: encoder.encode(filter))
        #expect(again == filter)
    }

    @Test func allowsAlertsCompilesFromTheAuthorizationRule() {
        #expect(AudienceFilter.alertShowingStatuses == [.authorized, .provisional, .ephemeral])
    }

    @Test func draftsPrefixNestedFieldPaths() {
        let draft = CampaignDraft(
            appID: 1, name: " ", templateName: "Welcome!", audience: AudienceFilter(languages: ["??"]),
            pushOptions: PushOptions(collapseID: String(repeating: "c", count: 65)), rateLimit: 0)
        #expect(fields(draft.validate()) == ["name", "templateName", "audience.languages[0]", "pushOptions.collapseID", "rateLimit"])
        #expect(CampaignDraft(appID: 1, name: "Spring sale", templateName: "spring-sale").validate().isEmpty)
    }

    @Test func patchesCheckOnlyWhatTheyChange() {
        #expect(CampaignPatch().validate().isEmpty)
        #expect(CampaignPatch(notes: .some(nil), sendAt: .some(nil), rateLimit: .some(nil)).validate().isEmpty)
        #expect(fields(CampaignPatch(name: "", rateLimit: 0).validate()) == ["name", "rateLimit"])
    }

    @Test func pushOptionsFollowAPNsRules() {
        let bad = PushOptions(
            pushType: .voip, expiration: Date(timeIntervalSince1970: 10), timeToLive: 60, threadID: "",
            relevanceScore: 2, custom: ["aps": 1])
        #expect(fields(bad.validate()) == ["pushType", "timeToLive", "threadID", "relevanceScore", "custom.aps"])
        #expect(fields(PushOptions(pushType: .background, priority: .immediate).validate()) == ["priority"])
        #expect(PushOptions(pushType: .background, priority: .powerAware, collapseID: "sale").validate().isEmpty)
    }

    @Test func timeToLiveBecomesAnExpirationFromTheSendTime() {
        let sent = Date(timeIntervalSince1970: 1_000)
        #expect(PushOptions(timeToLive: 0).apnsExpiration(sentAt: sent) == .immediately)
        #expect(PushOptions(timeToLive: 60).apnsExpiration(sentAt: sent) == .at(Date(timeIntervalSince1970: 1_060)))
        #expect(PushOptions().apnsExpiration(sentAt: sent) == nil)
    }

    @Test func countersAddUpBeforeAndAfterTheEnd() {
        let running = CampaignCounters(
            frozenAudienceSize: 100, accepted: 50, failed: 5, failedByReason: ["BadDeviceToken": 2, "Unregistered": 3],
            invalidated: 5, skipped: 10, deferred: 1, unsent: 0, finished: false)
        #expect(running.pending == 34 && running.sent == 55 && running.addsUp)
        let cancelled = CampaignCounters(
            frozenAudienceSize: 100, accepted: 50, failed: 5, failedByReason: ["BadDeviceToken": 2, "Unregistered": 3],
            invalidated: 5, skipped: 10, deferred: 1, unsent: 0, finished: true)
        #expect(cancelled.pending == 0 && cancelled.unsent == 34 && cancelled.addsUp)
        // A device that joined the audience during the run raises the audience size.
        let grown = CampaignCounters(
            frozenAudienceSize: 2, accepted: 3, failed: 0, failedByReason: [:], invalidated: 0, skipped: 0, deferred: 0,
            unsent: 0, finished: false)
        #expect(grown.audienceSize == 3 && grown.pending == 0 && grown.addsUp)
        #expect(!CampaignCounters(audienceSize: 3, accepted: 1).addsUp)
        #expect(!CampaignCounters(audienceSize: 1, failed: 1).addsUp)
    }

    @Test func apnsIDsAreUUIDv5OfCampaignAndDevice() throws {
        let publicID = try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        let campaign = Campaign(
            id: 1, publicID: publicID, appID: 1, name: "c", notes: nil, state: .running, templateName: "t",
            templateVersion: 1, localization: .server, variables: [:], audience: AudienceFilter(), pushOptions: PushOptions(),
            sendAt: nil, rateLimit: nil, audienceBound: 10, counters: CampaignCounters(), failureReason: nil,
            createdAt: Date(), updatedAt: Date(), startedAt: nil, finishedAt: nil)
        let id = campaign.apnsID(forDevice: 42)
        #expect(id == UUID.version5(namespace: publicID, name: "42"))
        #expect(id == campaign.apnsID(forDevice: 42) && id != campaign.apnsID(forDevice: 43))
        #expect(id.canonicalString.dropFirst(14).first == "5")
        #expect(campaign.collapseID == publicID.canonicalString)
    }
}
