import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct CampaignRepositoryTests {
    @Test(arguments: CitusTestDatabase.engines) func createsGetsAndListsNewestFirst(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            var created = [Campaign]()
            for n in 1...5 {
                created.append(try await f.campaigns.create(f.draft("Campaign \(n)"), actor: "test"))
            }
            let first = created[0]
            #expect(first.state == .draft && first.templateVersion == nil && first.audienceBound == nil)
            // Zero everywhere; its one message is listed, with nothing recorded yet.
            #expect(first.counters == CampaignCounters(variants: [VariantCounters(name: "default")]) && first.counters.addsUp)
            #expect(try await f.campaigns.get(id: first.id) == first)
            #expect(try await f.campaigns.get(publicID: first.publicID) == first)
            #expect(try await f.campaigns.get(id: 999_999) == nil)

            var seen = [Int64]()
            var cursor: Int64?
            repeat {
                let page = try await f.campaigns.list(CampaignListQuery(appID: f.app.id, cursor: cursor, limit: 2))
                seen += page.campaigns.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == Array(created.map(\.id).reversed()))

            _ = try await f.campaigns.transition(id: first.id, event: .cancel, actor: "test")
            let cancelled = try await f.campaigns.list(CampaignListQuery(state: .cancelled))
            #expect(cancelled.campaigns.map(\.id) == [first.id])
            #expect(try await f.campaigns.list(CampaignListQuery(appID: f.app.id + 1)).campaigns.isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func keepsEveryFieldOfTheDraft(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let draft = CampaignDraft(
                appID: f.app.id, name: "Spring sale", notes: "EU only", templateName: "spring-sale", localization: .client,
                variables: ["discount": 20, "code": "SPRING"],
                audience: AudienceFilter(
                    environment: .production, languages: ["de", "fr-CH"],
                    attributes: ["plan": .equals("pro"), "country": .oneOf(["DE", "AT"])],
                    registeredSince: Date(timeIntervalSince1970: 1_700_000_000),
                    authorization: AudienceFilter.AuthorizationCondition(allowsAlerts: true)),
                pushOptions: PushOptions(priority: .powerAware, timeToLive: 3600, threadID: "sale", custom: ["deep": "link"]),
                sendAt: Date(timeIntervalSince1970: 1_900_000_000), rateLimit: 500)
            let created = try await f.campaigns.create(draft, actor: "test")
            #expect(created.name == draft.name && created.notes == draft.notes && created.templateName == draft.templateName)
            #expect(created.localization == .client && created.variables == draft.variables)
            #expect(created.audience == draft.audience && created.pushOptions == draft.pushOptions)
            #expect(created.sendAt == draft.sendAt && created.rateLimit == 500)
            #expect(created.collapseID == created.publicID.canonicalString)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func onlyDraftsCanBeEditedAndAPatchChangesOnlyWhatItNames(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.addTemplate("welcome")
            let draft = try await f.campaigns.create(
                CampaignDraft(appID: f.app.id, name: "Old", notes: "to be cleared", templateName: "welcome", rateLimit: 100),
                actor: "test")
            let patch = CampaignPatch(name: "New", notes: .some(nil), audience: AudienceFilter(languages: ["de"]))
            let edited = try #require(try await f.campaigns.updateDraft(id: draft.id, patch: patch, actor: "test"))
            #expect(edited.name == "New" && edited.notes == nil && edited.rateLimit == 100)
            #expect(edited.audience.languages == ["de"] && edited.templateName == "welcome")

            let scheduled = try #require(try await f.campaigns.transition(id: draft.id, event: .schedule, actor: "test"))
            #expect(scheduled.state == .scheduled && scheduled.templateVersion == 1)
            await #expect(throws: CampaignError.invalidTransition(from: .scheduled, event: .edit)) {
                try await f.campaigns.updateDraft(id: draft.id, patch: CampaignPatch(name: "Too late"), actor: "test")
            }
            #expect(try await f.campaigns.get(id: draft.id)?.name == "New")
            #expect(try await f.campaigns.updateDraft(id: 999_999, patch: CampaignPatch(name: "x"), actor: "test") == nil)
            await #expect(throws: ValidationError.self) {
                try await f.campaigns.updateDraft(id: draft.id, patch: CampaignPatch(rateLimit: 0), actor: "test")
            }
            await #expect(throws: ValidationError.self) { try await f.campaigns.create(f.draft(""), actor: "test") }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func transitionsFollowTheStateMachineAndRefuseTheRest(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let campaign = try await f.campaigns.create(f.draft(), actor: "test")
            // Without a template version there is nothing to pin: refused, and nothing changes.
            await #expect(throws: ValidationError.self) {
                try await f.campaigns.transition(id: campaign.id, event: .schedule, actor: "test")
            }
            #expect(try await f.campaigns.get(id: campaign.id)?.state == .draft)

            try await f.addTemplate("welcome", versions: 2)
            let scheduled = try #require(try await f.campaigns.transition(id: campaign.id, event: .schedule, actor: "test"))
            #expect(scheduled.state == .scheduled && scheduled.templateVersion == 2)
            await #expect(throws: CampaignError.invalidTransition(from: .scheduled, event: .pause)) {
                try await f.campaigns.transition(id: campaign.id, event: .pause, actor: "test")
            }
            let cancelled = try #require(try await f.campaigns.transition(id: campaign.id, event: .cancel, actor: "test"))
            #expect(cancelled.state == .cancelled && cancelled.finishedAt != nil)
            await #expect(throws: CampaignError.invalidTransition(from: .cancelled, event: .resume)) {
                try await f.campaigns.transition(id: campaign.id, event: .resume, actor: "test")
            }
            #expect(try await f.campaigns.transition(id: 999_999, event: .cancel, actor: "test") == nil)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action LIKE 'campaign.%'") == 3)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aFailedCampaignKeepsItsReason(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let campaign = try await f.runningCampaign()
            let failed = try #require(
                try await f.campaigns.transition(
                    id: campaign.id, event: .fail(reason: "InvalidProviderToken"), actor: "engine"))
            #expect(failed.state == .failed && failed.failureReason == "InvalidProviderToken" && failed.finishedAt != nil)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func estimateCountsEachKindOfFilter(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            func register(
                _ n: Int, _ environment: APNSEnvironment, _ languages: [String], _ authorization: AuthorizationSettings,
                timeZone: String?, userID: String?, attributes: [String: PayloadValue], appID: Int64? = nil
            ) async throws {
                let registration = try DeviceRegistration(
                    environment: environment, languages: languages, authorization: authorization, timeZone: timeZone,
                    userID: userID, attributes: attributes)
                _ = try await f.devices.register(
                    appID: appID ?? f.app.id, token: StoreFixture.token(n), registration: registration)
            }
            let alerts = AuthorizationSettings(status: .authorized, alert: true, badge: true)
            try await register(
                1, .sandbox, ["en-US"], alerts, timeZone: "Europe/Paris", userID: "u1",
                attributes: ["plan": "pro", "country": "DE"])
            try await register(
                2, .sandbox, ["pt-BR", "en"], AuthorizationSettings(status: .authorized, alert: true),
                timeZone: "America/Sao_Paulo", userID: "u2", attributes: ["plan": "free", "country": "AT"])
            try await register(
                3, .production, ["pt-PT"], AuthorizationSettings(status: .denied), timeZone: "Europe/Lisbon", userID: nil,
                attributes: ["plan": "pro", "country": "FR", "seats": 3])
            try await register(
                4, .production, ["en-GB"], AuthorizationSettings(status: .provisional, alert: true),
                timeZone: "Europe/London", userID: "u4", attributes: ["plan": "pro"])
            try await register(5, .sandbox, [], .notDetermined, timeZone: nil, userID: "u5", attributes: [:])
            // Invalidated, and another app's: never in an audience.
            try await register(
                6, .sandbox, ["de"], alerts, timeZone: "Europe/Berlin", userID: "u6", attributes: ["country": "DE"])
            try await f.invalidate(StoreFixture.token(6), reason: "BadDeviceToken", daysAgo: 0)
            let other = try await f.apps.add(
                try NewApp(
                    bundleID: "com.example.other", teamID: "TEAM123456", keyID: "KEY1234567", signingKeyPEM: TestSigningKey.pem(),
                    defaultEnvironment: .sandbox),
                actor: "test")
            try await register(
                7, .sandbox, ["en-US"], alerts, timeZone: "Europe/Paris", userID: "u1",
                attributes: ["plan": "pro", "country": "DE"], appID: other.id)
            try await f.client.query(
                """
                UPDATE devices SET registered_at = now() - interval '10 days'
                WHERE app_id = \(f.app.id) AND token = \(ByteBuffer(bytes: StoreFixture.token(1).bytes))
                """)

            func estimate(_ filter: AudienceFilter) async throws -> Int {
                try await f.campaigns.estimate(appID: f.app.id, filter: filter)
            }
            let dayAgo = Date(timeIntervalSinceNow: -86_400)
            #expect(try await estimate(AudienceFilter()) == 5)
            #expect(try await estimate(AudienceFilter(environment: .production)) == 2)
            #expect(try await estimate(AudienceFilter(languages: ["pt"])) == 2)
            #expect(try await estimate(AudienceFilter(languages: ["en"])) == 2)
            #expect(try await estimate(AudienceFilter(languages: ["en-GB", "pt-PT"])) == 2)
            #expect(try await estimate(AudienceFilter(attributes: ["plan": .equals("pro")])) == 3)
            #expect(try await estimate(AudienceFilter(attributes: ["seats": .equals(3)])) == 1)
            #expect(try await estimate(AudienceFilter(attributes: ["country": .oneOf(["DE", "AT"])])) == 2)
            #expect(
                try await estimate(AudienceFilter(attributes: ["plan": .equals("pro"), "country": .oneOf(["DE", "FR"])])) == 2)
            #expect(try await estimate(AudienceFilter(userIDs: ["u1", "u4", "u6", "nobody"])) == 2)
            #expect(try await estimate(AudienceFilter(registeredBefore: dayAgo)) == 1)
            #expect(try await estimate(AudienceFilter(registeredSince: dayAgo)) == 4)
            func authorization(_ condition: AudienceFilter.AuthorizationCondition) -> AudienceFilter {
                AudienceFilter(authorization: condition)
            }
            let allowing = AudienceFilter.AuthorizationCondition(allowsAlerts: true)
            #expect(try await estimate(authorization(allowing)) == 3)
            #expect(try await estimate(authorization(AudienceFilter.AuthorizationCondition(allowsAlerts: false))) == 2)
            let unasked = AudienceFilter.AuthorizationCondition(statuses: [.denied, .notDetermined])
            #expect(try await estimate(authorization(unasked)) == 2)
            #expect(try await estimate(authorization(AudienceFilter.AuthorizationCondition(badge: true))) == 1)
            #expect(try await estimate(AudienceFilter(timeZones: ["Europe/Paris", "Europe/London"])) == 2)
            #expect(try await estimate(AudienceFilter(environment: .sandbox, languages: ["en"], authorization: allowing)) == 1)
            await #expect(throws: ValidationError.self) { try await estimate(AudienceFilter(languages: [])) }

            // The quick estimate counts exactly within its budget, and its sampled fallback reads
            // the whole of a small table, so it is exact too.
            let quick = try await f.campaigns.estimateQuickly(appID: f.app.id, filter: AudienceFilter(languages: ["pt"]), budget: 5)
            #expect(quick == AudienceEstimate(devices: 2, exact: true))
            let sampled = try await f.campaigns.estimateFromSample(appID: f.app.id, filter: AudienceFilter(languages: ["pt"]))
            #expect(sampled == AudienceEstimate(devices: 2, exact: true))
        }
    }
}
