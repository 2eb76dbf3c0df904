import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

@Suite struct CampaignWorkTests {
    @Test(arguments: CitusTestDatabase.engines) func startingADueCampaignFreezesItsAudienceAndSplitsItIntoChunks(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...30)
            try await f.addTemplate("welcome")
            let later = try await f.campaigns.create(f.draft("Later", sendAt: Date(timeIntervalSinceNow: 3600)), actor: "test")
            _ = try await f.campaigns.transition(id: later.id, event: .schedule, actor: "test")
            let due = try await f.campaigns.create(f.draft("Now", audience: AudienceFilter(languages: ["en"])), actor: "test")
            _ = try await f.campaigns.transition(id: due.id, event: .schedule, actor: "test")

            let started = try await f.work.startDueCampaigns(limit: 10, actor: "scheduler")
            #expect(started.map(\.id) == [due.id])
            let campaign = try #require(started.first)
            #expect(campaign.state == .running && campaign.startedAt != nil)
            let highestID = try await f.count("SELECT max(id) FROM devices")
            #expect(campaign.audienceBound == Int64(highestID))
            #expect(campaign.counters.audienceSize == 30 && campaign.counters.pending == 30 && campaign.counters.addsUp)
            #expect(try await f.work.startDueCampaigns(limit: 10, actor: "scheduler").isEmpty)
            #expect(try await f.campaigns.get(id: later.id)?.state == .scheduled)

            let rows = try await f.client.query(
                "SELECT bucket_from, bucket_to FROM campaign_chunks WHERE campaign_id = \(campaign.id) ORDER BY chunk"
            ).collect()
            let ranges = try rows.map { try $0.decode((Int32, Int32).self) }
            #expect(ranges.count == CampaignChunking.chunkCount && ranges.first?.0 == 0 && ranges.last?.1 == 255)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.1 + 1 == $1.0 })

            // Registered after the start: past the bound, so not in this campaign.
            try await f.registerDevices(31...31)
            let seen = try await f.run(campaign).seen
            #expect(seen.count == 30 && Set(seen).count == 30)
        }
    }

    /// A chunk reads few columns, the permission switches packed in one integer: each device
    /// must come out as the registry holds it, every switch on its own.
    @Test(arguments: CitusTestDatabase.engines) func aChunkReadsEachDeviceAsTheRegistryHoldsIt(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let settings: [AuthorizationSettings] = [
                AuthorizationSettings(status: .authorized, alert: true),
                AuthorizationSettings(status: .provisional, badge: true),
                AuthorizationSettings(status: .ephemeral, sound: true),
                AuthorizationSettings(status: .authorized, criticalAlert: true),
                AuthorizationSettings(status: .authorized, timeSensitive: true),
                AuthorizationSettings(status: .denied),
                AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true, criticalAlert: true, timeSensitive: true),
                AuthorizationSettings(status: .notDetermined, alert: true, timeSensitive: true),
            ]
            // Every status: each is read back by its own name.
            #expect(Set(settings.map(\.status)) == Set(AuthorizationSettings.Status.allCases))
            var registered = [Device]()
            for (index, authorization) in settings.enumerated() {
                let registration = try DeviceRegistration(
                    environment: index.isMultiple(of: 2) ? .sandbox : .production, languages: index == 5 ? [] : ["de-AT", "en"],
                    authorization: authorization, timeZone: index == 0 ? nil : "Asia/Tokyo",
                    userID: index == 1 ? nil : "user-\(index)", attributes: index == 2 ? [:] : ["plan": .string("pro"), "seats": .int(index)])
                registered += try await f.registerDevices(index + 1...index + 1, registration: registration)
            }
            let campaign = try await f.runningCampaign()
            var read = [CampaignDevice]()
            while let lease = try await f.work.claimChunk(owner: "test", leaseDuration: .seconds(30)) {
                // Held by its lease: the next claim takes another chunk.
                read += try await f.work.nextDevices(lease, filter: campaign.audience, after: lease.cursor, limit: 100)
            }
            #expect(read.sorted { $0.id < $1.id } == registered.map(CampaignDevice.init))
        }
    }

    /// A campaign reads only the attributes its templates name, each by its key; none when they
    /// name none; all of them when it does not say, or names one a template could not.
    @Test(arguments: CitusTestDatabase.engines) func aChunkReadsOnlyTheAttributesItsTemplatesName(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let attributes: [String: PayloadValue] = [
                "plan": .string("pro"), "seats": .int(3), "ratio": .double(0.25), "nested": .object(["a": .array([.int(1), .null])]),
                "it's": .string("quoted"), "none": .null,
            ]
            let registration = try DeviceRegistration(
                environment: .production, languages: ["en"], authorization: AuthorizationSettings(status: .authorized, alert: true),
                timeZone: nil, userID: nil, attributes: attributes)
            _ = try await f.registerDevices(1...3, registration: registration)
            let campaign = try await f.runningCampaign()
            func read(_ names: [String]?) async throws -> Set<[String: PayloadValue]> {
                var read = [CampaignDevice]()
                try await f.client.query("UPDATE campaign_chunks SET lease_expires_at = NULL")
                while var lease = try await f.work.claimChunk(owner: "test", leaseDuration: .seconds(30)) {
                    lease.attributeNames = names
                    read += try await f.work.nextDevices(lease, filter: campaign.audience, after: lease.cursor, limit: 100)
                }
                #expect(read.count == 3)
                return Set(read.map(\.attributes))
            }
            #expect(
                try await read(["nested", "none", "ratio", "seats", "unknown"]) == [
                    ["nested": .object(["a": .array([.int(1), .null])]), "none": .null, "ratio": .double(0.25), "seats": .int(3)]
                ])
            #expect(try await read([]) == [[:]])
            #expect(try await read(nil) == [attributes])
            #expect(try await read(["plan", "it's"]) == [attributes])
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func concurrentClaimsNeverShareAChunk(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let campaign = try await f.runningCampaign()
            let leases = try await withThrowingTaskGroup(of: ChunkLease?.self, returning: [ChunkLease].self) { group in
                for n in 0..<24 {
                    group.addTask { try await f.work.claimChunk(owner: "worker-\(n)", leaseDuration: .seconds(86_400)) }
                }
                var claimed = [ChunkLease]()
                for try await lease in group {
                    if let lease { claimed.append(lease) }
                }
                return claimed
            }
            #expect(leases.count == CampaignChunking.chunkCount)
            #expect(Set(leases.map(\.chunk)).count == CampaignChunking.chunkCount)
            #expect(leases.allSatisfy { $0.campaignID == campaign.id && $0.token == 1 })
            #expect(try await f.work.claimChunk(owner: "late", leaseDuration: .seconds(86_400)) == nil)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aChunkGivenBackWithAHoldIsPassedByUntilTheHoldEnds(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            _ = try await f.runningCampaign()
            let first = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))
            #expect(first.chunk == 0)
            try await f.work.releaseChunk(first, hold: .seconds(3_600))
            // The lowest chunk is held: the next claim takes the one after it.
            let next = try #require(try await f.work.claimChunk(owner: "b", leaseDuration: .seconds(86_400)))
            #expect(next.chunk == 1)
            let held = try await f.client.query(
                "SELECT lease_owner, lease_expires_at > now() + interval '59 minutes' FROM campaign_chunks WHERE chunk = 0"
            ).collect()
            #expect(try held.map { try $0.decode((String?, Bool).self) }.first.map { $0.0 == nil && $0.1 } == true)
            // Given back without a hold: claimed again at once, by the next lowest-first claim.
            try await f.work.releaseChunk(next)
            #expect(try await f.work.claimChunk(owner: "c", leaseDuration: .seconds(86_400))?.chunk == 1)
            // Once its hold is over (here ended early by a release without one), the lowest chunk
            // is the first claim's again.
            try await f.work.releaseChunk(first, hold: .zero)
            #expect(try await f.work.claimChunk(owner: "d", leaseDuration: .seconds(86_400))?.chunk == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aLostLeaseWritesNothing(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let devices = try await f.registerDevices(1...5)
            let campaign = try await f.runningCampaign()
            // Already expired when granted: the next claim takes the same chunk over.
            let stale = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(-1)))
            let fresh = try #require(try await f.work.claimChunk(owner: "b", leaseDuration: .seconds(86_400)))
            #expect(fresh.chunk == stale.chunk && fresh.token == stale.token + 1 && fresh.owner == "b")

            let records = devices.map {
                DeliveryRecord(deviceID: $0.id, outcome: .accepted, apnsID: campaign.apnsID(forDevice: $0.id), bucket: $0.bucket)
            }
            let invalidations = [DeviceInvalidation(deviceID: devices[0].id, reason: "BadDeviceToken")]
            await #expect(throws: CampaignWorkError.leaseLost) {
                try await f.work.recordBatch(stale, records: records, invalidations: invalidations, cursor: 1_000)
            }
            await #expect(throws: CampaignWorkError.leaseLost) { try await f.work.markInFlight(stale, upTo: 1_000) }
            await #expect(throws: CampaignWorkError.leaseLost) { try await f.work.completeChunk(stale, actor: "test") }
            await #expect(throws: CampaignWorkError.leaseLost) {
                try await f.work.heartbeat(stale, leaseDuration: .seconds(86_400))
            }
            await #expect(throws: CampaignWorkError.leaseLost) { try await f.work.holdChunk(stale, until: Date()) }
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 0)
            #expect(try await f.count("SELECT count(*) FROM devices WHERE invalidated_at IS NOT NULL") == 0)
            #expect(try await f.count("SELECT sum(cursor)::bigint FROM campaign_chunks") == 0)

            try await f.work.heartbeat(fresh, leaseDuration: .seconds(86_400))
            let receipt = try await f.work.recordBatch(fresh, records: records, invalidations: invalidations, cursor: 1_000)
            #expect(receipt == BatchReceipt(recorded: 5, invalidated: 1))
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aBatchRecordedTwiceCountsOnce(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let devices = try await f.registerDevices(1...30)
            let campaign = try await f.runningCampaign()
            let lease = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))
            let records = [
                DeliveryRecord(deviceID: devices[0].id, outcome: .accepted, language: LanguageTag("en"), bucket: devices[0].bucket),
                DeliveryRecord(deviceID: devices[1].id, outcome: .failed(status: 400, reason: "BadDeviceToken"), bucket: devices[1].bucket),
                DeliveryRecord(deviceID: devices[2].id, outcome: .skipped(reason: "notAuthorized"), bucket: devices[2].bucket),
                DeliveryRecord(deviceID: devices[3].id, outcome: .deferred, bucket: devices[3].bucket),
            ]
            let invalidations = [DeviceInvalidation(deviceID: devices[1].id, reason: "BadDeviceToken")]
            let first = try await f.work.recordBatch(lease, records: records, invalidations: invalidations, cursor: 10)
            let again = try await f.work.recordBatch(lease, records: records, invalidations: invalidations, cursor: 10)
            #expect(first == BatchReceipt(recorded: 4, invalidated: 1))
            #expect(again == BatchReceipt(recorded: 0, invalidated: 0))
            // A later, different outcome for a recorded device does not replace the first.
            let changed = [
                DeliveryRecord(deviceID: devices[0].id, outcome: .failed(status: 500, reason: "InternalServerError"), bucket: devices[0].bucket)
            ]
            #expect(try await f.work.recordBatch(lease, records: changed, invalidations: [], cursor: 10).recorded == 0)
            // A recorded device beside a new one: the new one's row is written and counted, the
            // other keeps its first outcome (the plain INSERT fails, the batch goes in again
            // skipping the row that is there).
            let mixed = [
                DeliveryRecord(deviceID: devices[0].id, outcome: .failed(status: 500, reason: "InternalServerError"), bucket: devices[0].bucket),
                DeliveryRecord(deviceID: devices[4].id, outcome: .accepted, language: LanguageTag("en"), bucket: devices[4].bucket),
            ]
            #expect(try await f.work.recordBatch(lease, records: mixed, invalidations: [], cursor: 10).recorded == 1)

            let counters = try #require(try await f.campaigns.get(id: campaign.id)).counters
            #expect(counters.accepted == 2 && counters.failed == 1 && counters.skipped == 1 && counters.deferred == 1)
            #expect(counters.failedByReason == ["BadDeviceToken": 1] && counters.invalidated == 1)
            #expect(counters.pending == 25 && counters.addsUp)
            #expect(try await f.count("SELECT count(*) FROM deliveries") == 5)
            #expect(try await f.count("SELECT count(*) FROM deliveries WHERE outcome = 'accepted'") == 2)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func unregisteredInvalidatesOnlyDevicesNotRegisteredSinceAPNsTimestamp(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let devices = try await f.registerDevices(1...3)
            let campaign = try await f.runningCampaign()
            let lease = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))
            let (old, renewed, bad) = (devices[0], devices[1], devices[2])
            try await f.client.query("UPDATE devices SET registered_at = now() - interval '2 hours' WHERE id = \(old.id)")
            // APNs: unregistered an hour ago. `renewed` registered after that, `old` before.
            // A millisecond that a Double of seconds would lose (…001).
            let unregisteredAt = APNSTimestamp(milliseconds: (Int64(Date().timeIntervalSince1970) - 3600) * 1000 + 1)
            let records =
                [old, renewed].map {
                    DeliveryRecord(deviceID: $0.id, outcome: .failed(status: 410, reason: "Unregistered"), bucket: $0.bucket)
                } + [DeliveryRecord(deviceID: bad.id, outcome: .failed(status: 400, reason: "BadDeviceToken"), bucket: bad.bucket)]
            let receipt = try await f.work.recordBatch(
                lease, records: records,
                invalidations: [
                    DeviceInvalidation(deviceID: old.id, reason: "Unregistered", unregisteredAt: unregisteredAt),
                    DeviceInvalidation(deviceID: renewed.id, reason: "Unregistered", unregisteredAt: unregisteredAt),
                    DeviceInvalidation(deviceID: bad.id, reason: "BadDeviceToken"),
                ],
                cursor: 0)
            #expect(receipt.invalidated == 2)

            let oldNow = try #require(try await f.devices.find(appID: f.app.id, token: old.token))
            #expect(!oldNow.isValid && oldNow.invalidationReason == "Unregistered")
            #expect(oldNow.apnsUnregisteredAt == unregisteredAt)
            let renewedNow = try #require(try await f.devices.find(appID: f.app.id, token: renewed.token))
            #expect(renewedNow.isValid && renewedNow.apnsUnregisteredAt == nil)
            let badNow = try #require(try await f.devices.find(appID: f.app.id, token: bad.token))
            #expect(badNow.invalidationReason == "BadDeviceToken" && badNow.apnsUnregisteredAt == nil)
            let counters = try #require(try await f.campaigns.get(id: campaign.id)).counters
            #expect(counters.invalidated == 2 && counters.failedByReason == ["Unregistered": 2, "BadDeviceToken": 1])

            // Registering again revives the token; invalidated devices are out of every audience meanwhile.
            #expect(try await f.campaigns.estimate(appID: f.app.id, filter: AudienceFilter()) == 1)
            let (revived, created) = try await f.devices.register(
                appID: f.app.id, token: old.token, registration: StoreFixture.registration())
            #expect(!created && revived.isValid && revived.id == old.id && revived.registeredAt > unregisteredAt.date)
            #expect(try await f.campaigns.estimate(appID: f.app.id, filter: AudienceFilter()) == 2)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aCampaignCompletesWithItsLastChunkAndItsLedgerPages(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...40)
            let campaign = try await f.runningCampaign()
            let (seen, completed) = try await f.run(campaign, batch: 7) { device in
                if device.id % 5 == 0 { return .failed(status: 400, reason: "BadDeviceToken") }
                if device.id % 7 == 0 { return .skipped(reason: "notAuthorized") }
                return .accepted
            }
            #expect(seen.count == 40 && Set(seen).count == 40)

            // The last chunk's completion completed the campaign, once.
            let done = try #require(completed.count == 1 ? completed.first : nil)
            #expect(done.id == campaign.id && done.state == .completed && done.finishedAt != nil)
            let counters = done.counters
            #expect(counters.addsUp && counters.pending == 0 && counters.unsent == 0 && counters.audienceSize == 40)
            #expect(counters.failed == seen.filter { $0 % 5 == 0 }.count)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.complete'") == 1)

            var paged = [Int64]()
            var cursor: Int64?
            repeat {
                let page = try await f.campaigns.deliveries(
                    campaignID: campaign.id, query: DeliveryListQuery(cursor: cursor, limit: 15))
                paged += page.entries.map(\.record.deviceID)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(paged == seen.sorted())

            let failed = try await f.campaigns.deliveries(
                campaignID: campaign.id, query: DeliveryListQuery(outcome: .failed, reason: "BadDeviceToken"))
            #expect(failed.entries.count == counters.failed && failed.nextCursor == nil)
            let entry = try #require(failed.entries.first)
            #expect(entry.record.outcome == .failed(status: 400, reason: "BadDeviceToken") && entry.token != nil)
            #expect(entry.record.apnsID == campaign.apnsID(forDevice: entry.record.deviceID))
            #expect(entry.record.language?.value == "en")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aCampaignWhoseLastChunkEndsWhilePausedCompletesWhenResumed(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.registerDevices(1...10)
            let campaign = try await f.runningCampaign()
            // A lease that cannot lapse however slow the machine: a lapsed one would be taken over.
            let lease = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))
            let others = try await f.run(campaign).completed
            #expect(others.isEmpty)
            _ = try await f.campaigns.transition(id: campaign.id, event: .pause, actor: "test")
            // The worker had read its last device before the pause: its chunk ends, the campaign
            // stays paused.
            #expect(try await f.work.completeChunk(lease, actor: "a") == nil)
            #expect(try await f.campaigns.get(id: campaign.id)?.state == .paused)

            let resumed = try #require(try await f.campaigns.transition(id: campaign.id, event: .resume, actor: "test"))
            #expect(resumed.state == .completed && resumed.finishedAt != nil)
            #expect(try await f.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.complete'") == 1)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func pauseStopsClaimingAndCancelCountsTheRestUnsent(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let devices = try await f.registerDevices(1...10)
            let campaign = try await f.runningCampaign()
            let lease = try #require(try await f.work.claimChunk(owner: "a", leaseDuration: .seconds(86_400)))

            _ = try await f.campaigns.transition(id: campaign.id, event: .pause, actor: "test")
            #expect(try await f.work.claimChunk(owner: "b", leaseDuration: .seconds(86_400)) == nil)
            _ = try await f.campaigns.transition(id: campaign.id, event: .resume, actor: "test")
            #expect(try await f.work.claimChunk(owner: "b", leaseDuration: .seconds(86_400)) != nil)

            let cancelled = try #require(try await f.campaigns.transition(id: campaign.id, event: .cancel, actor: "test"))
            #expect(cancelled.counters.unsent == 10 && cancelled.counters.pending == 0 && cancelled.counters.addsUp)
            #expect(try await f.work.claimChunk(owner: "c", leaseDuration: .seconds(86_400)) == nil)

            // The batch in flight when it was cancelled is still recorded, and moves out of unsent.
            let record = DeliveryRecord(deviceID: devices[0].id, outcome: .accepted, bucket: devices[0].bucket)
            _ = try await f.work.recordBatch(lease, records: [record], invalidations: [], cursor: devices[0].id)
            let after = try #require(try await f.campaigns.get(id: campaign.id)).counters
            #expect(after.accepted == 1 && after.unsent == 9 && after.addsUp)
        }
    }
}
