import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Frequency caps on the real engine: campaigns running at once on two instances never take a
/// device past a cap, and a notification that was not accepted gives its place back.
@Suite(.serialized) struct FrequencyCapTests {
    static let devices = 400

    static func registration(_ n: Int) throws -> DeviceRegistration {
        try DeviceRegistration(
            environment: .production, languages: ["en"],
            authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
            timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": 2])
    }

    @Test func capsHoldForCampaignsRunningAtOnceOnTwoInstances() async throws {
        // Devices 0..<10 answer 410 with a timestamp before their registration: failed, kept
        // valid, and their place under the cap given back each time.
        var fault = SimulatorFaultScript()
        for n in 0..<10 { fault.unregistered[EngineHarness.token(n).hex] = Date().addingTimeInterval(-86_400) }
        try await EngineHarness.with(fault: fault) { h in
            try await h.register(0..<Self.devices, Self.registration)
            let caps = [FrequencyCap(limit: 3, window: 7 * 86_400), FrequencyCap(limit: 2, window: 86_400)]
            _ = try await h.store.apps.updateSettings(
                appID: h.app.id, settings: AppSettings(defaultTimeZone: nil, quietHours: nil, frequencyCaps: caps),
                actor: "test")
            // Three campaigns at once: the 2-a-day cap lets each device get two of them.
            var scheduled = [Campaign]()
            for _ in 0..<3 { scheduled.append(try await h.scheduledCampaign()) }
            let campaigns = scheduled
            let finished = try await h.withEngines(owners: ["engine-1", "engine-2"]) { () async throws -> [Campaign] in
                try await h.waitFor("the three campaigns to complete") {
                    for campaign in campaigns where try await !h.campaign(campaign.id).state.isFinished { return false }
                    return true
                }
                var finished = [Campaign]()
                for campaign in campaigns { finished.append(try await h.campaign(campaign.id)) }
                return finished
            }
            #expect(finished.allSatisfy { $0.state == .completed && $0.frequencyCaps == caps && $0.counters.addsUp })
            var perToken = [String: Int]()
            for notification in try h.received() { perToken[notification.token, default: 0] += 1 }
            let healthy = (10..<Self.devices).map { EngineHarness.token($0).hex }
            #expect(healthy.allSatisfy { perToken[$0] == 2 }, "a device got more or fewer than its two")
            #expect((0..<10).allSatisfy { perToken[EngineHarness.token($0).hex] == nil })
            #expect(finished.map(\.counters.accepted).reduce(0, +) == 2 * (Self.devices - 10))
            var capped = 0
            var failed = 0
            for campaign in finished {
                let rows = try await h.deliveries(campaign.id)
                capped += rows.values.filter { $0.reason == "frequencyCap" }.count
                failed += rows.values.filter { $0.outcome == "failed" }.count
            }
            #expect(capped == Self.devices - 10)
            // The 410 devices failed in every campaign: their places went back each time.
            #expect(failed == 3 * 10)
            let places = try await h.store.client.query("SELECT count(*) FROM frequency_sends").collect().first!.decode(Int64.self)
            #expect(places == Int64(2 * (Self.devices - 10)))

            // The estimate tells how many a campaign now would skip, by the caps as they are now.
            try await h.withAPI { api in
                let estimate = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey, body: #"{"app": "\#(EngineHarness.bundleID)"}"#)
                #expect(estimate.json["devices"] as? Int == Self.devices)
                #expect(estimate.json["overFrequencyCap"] as? Int == Self.devices - 10, "\(estimate.body)")
                _ = try await h.store.apps.updateSettings(
                    appID: h.app.id, settings: AppSettings(defaultTimeZone: nil, quietHours: nil, frequencyCaps: [caps[0]]),
                    actor: "test")
                let relaxed = try await api.request(
                    .post, "/v1/campaigns/estimate", key: api.marketingKey, body: #"{"app": "\#(EngineHarness.bundleID)"}"#)
                #expect(relaxed.json["overFrequencyCap"] as? Int == 0, "3 a week leaves room: \(relaxed.body)")
            }
        }
    }

    @Test func badCapsAreRefusedWithOneLine() async throws {
        try await EngineHarness.with { h in
            let cli = CLITests()
            for (cap, message) in [
                ("0/7d", "from 1 to 1000"), ("3/0d", "whole hours"), ("3/91d", "whole hours"), ("3/week", "N/Xd or N/Xh"),
                ("-1/7d", "from 1 to 1000"), ("3", "N/Xd or N/Xh"),
            ] {
                let run = try await cli.herald(
                    ["apps", "set", EngineHarness.bundleID, "--frequency-cap=\(cap)"], database: h.configuration.databaseURL)
                #expect(run.status != 0 && run.stderr.contains(message), "\(cap): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1)
            }
            #expect(try await h.store.apps.find(id: h.app.id)?.frequencyCaps == [])
            let set = try await cli.herald(
                ["apps", "set", EngineHarness.bundleID, "--frequency-cap", "3/7d", "--frequency-cap", "1/12h"],
                database: h.configuration.databaseURL)
            #expect(set.status == 0 && set.stdout.contains("frequency caps 3/7d, 1/12h"), "\(set.stdout) \(set.stderr)")
            let cleared = try await cli.herald(
                ["apps", "set", EngineHarness.bundleID, "--frequency-cap", "none"], database: h.configuration.databaseURL)
            #expect(cleared.status == 0 && cleared.stdout.contains("frequency caps none"))
        }
    }

    /// Ten campaigns reserve the same devices at the same moment under a cap of one: each
    /// device's one place goes to exactly one of them.
    @Test func concurrentReservationsNeverShareTheLastPlace() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<3_200, Self.registration)
            for _ in 0..<10 { _ = try await h.scheduledCampaign() }
            let work = h.store.campaignWork
            #expect(try await work.startDueCampaigns(limit: 10, actor: "test").count == 10)
            var leases = [Int64: ChunkLease]()
            while let lease = try await work.claimChunk(owner: "test", leaseDuration: .seconds(60)) {
                if leases[lease.campaignID] == nil { leases[lease.campaignID] = lease }
            }
            // Every lease is its campaign's first chunk: the devices of its buckets (as a batch has).
            let buckets = try #require(leases.values.first).buckets
            #expect(leases.values.allSatisfy { $0.buckets == buckets })
            let ids = try await h.store.client.query(
                "SELECT id FROM devices WHERE bucket BETWEEN \(Int32(buckets.lowerBound)) AND \(Int32(buckets.upperBound)) ORDER BY id"
            ).collect().map { try $0.decode(Int64.self) }
            #expect(ids.count > 100)
            let caps = [FrequencyCap(limit: 1, window: 86_400)]
            let now = Date()
            // Several rounds, each two days after the last (the day's places free again), so the
            // reservations truly overlap on the pool's connections.
            var last = [Int64: Set<Int64>]()
            for round in 0..<6 {
                let moment = now.addingTimeInterval(Double(round) * 2 * 86_400)
                let byCampaign = try await withThrowingTaskGroup(of: (Int64, Set<Int64>).self) { group in
                    for lease in leases.values {
                        group.addTask { (lease.campaignID, try await work.reserve(lease, deviceIDs: ids, caps: caps, now: moment)) }
                    }
                    var all = [Int64: Set<Int64>]()
                    for try await (campaign, granted) in group { all[campaign] = granted }
                    return all
                }
                last = byCampaign
                let grants = Array(byCampaign.values)
                #expect(grants.count == 10)
                #expect(grants.map(\.count).reduce(0, +) == ids.count, "round \(round): a device got two places, or none")
                #expect(grants.reduce(Set<Int64>()) { $0.union($1) } == Set(ids))
            }
            let latest = now.addingTimeInterval(10 * 86_400)
            // Reserving again for the same campaign (a resent batch) keeps its places.
            let (campaign, lease) = try #require(leases.first)
            let again = try await work.reserve(lease, deviceIDs: ids, caps: caps, now: latest.addingTimeInterval(1))
            #expect(again == last[campaign])
        }
    }

    /// Transactional sends ignore quiet hours and caps unless they opt in.
    @Test func transactionalSendsOptInToQuietHoursAndCaps() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<2, Self.registration)
            // Quiet hours around the present hour in UTC, the zone of devices without one.
            let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour!
            let quiet = QuietHours(start: hour * 60, end: ((hour + 2) % 24) * 60)
            _ = try await h.store.apps.updateSettings(
                appID: h.app.id,
                settings: AppSettings(defaultTimeZone: nil, quietHours: quiet, frequencyCaps: [FrequencyCap(limit: 1, window: 86_400)]),
                actor: "test")
            try await h.withAPI { api in
                func send(_ n: Int, _ extra: String) async throws -> [String: Any] {
                    let reply = try await api.request(
                        .post, "/v1/apps/\(EngineHarness.bundleID)/notifications", key: api.appKey,
                        body: #"{"tokens": ["\#(EngineHarness.token(n).hex)"], "payload": {"aps": {"alert": "Hi"}}\#(extra)}"#)
                    #expect(reply.status == .ok, "\(reply.body)")
                    return try #require((reply.json["results"] as? [[String: Any]])?.first)
                }
                #expect(try await send(0, "")["outcome"] as? String == "accepted")
                let quietly = try await send(0, #", "respectQuietHours": true"#)
                #expect(quietly["outcome"] as? String == "skipped" && quietly["reason"] as? String == "quietHours")
                // Caps: not counted unless asked; once asked, the second send in a day is skipped.
                #expect(try await send(1, "")["outcome"] as? String == "accepted")
                #expect(try await send(1, #", "respectFrequencyCaps": true"#)["outcome"] as? String == "accepted")
                let capped = try await send(1, #", "respectFrequencyCaps": true"#)
                #expect(capped["outcome"] as? String == "skipped" && capped["reason"] as? String == "frequencyCap")
                let bad = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/notifications", key: api.appKey,
                    body: #"{"tokens": ["\#(EngineHarness.token(1).hex)"], "payload": {"aps": {"alert": "Hi"}}, "respectFrequencyCaps": "yes"}"#)
                #expect(bad.status == .unprocessableContent && bad.json["field"] as? String == "respectFrequencyCaps")
            }
        }
    }
}
