import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Recurring campaigns on real PostgreSQL with the clock injected (docs/campaigns.md
/// "Recurring campaigns"): runs started when due, skipped while the previous one sends,
/// missed after their hour, never twice across restarts and instances.
@Suite(.serialized)
struct SeriesTests {
    static func at(_ text: String) -> Date { RFC3339.parse(text)! }

    static func blueprint(_ h: EngineHarness) -> CampaignDraft {
        CampaignDraft(appID: h.app.id, name: "Daily deals", templateName: "cart-reminder", variables: ["storeName": "Acme"])
    }

    static let daily = Recurrence(frequency: .daily, time: "10:00", timeZone: "UTC", startsOn: "2027-03-01")

    /// Marks the run's campaign finished, as the engine would once it sent everything.
    static func finish(_ h: EngineHarness, _ run: SeriesRun) async throws {
        let id = try #require(run.campaignID)
        try await h.store.client.query("UPDATE campaigns SET state = 'completed', finished_at = now() WHERE public_id = \(id)")
    }

    @Test func aWeekOfDailyRunsEachACampaignOfItsOwnLinkedToTheSeries() async throws {
        try await EngineHarness.with { h in
            let series = try await h.store.series.create(
                name: "Daily deals", blueprint: Self.blueprint(h), recurrence: Self.daily, actor: "test",
                now: Self.at("2027-02-28T12:00:00Z"))
            #expect(series.next?.date == "2027-03-01" && series.next?.due == Self.at("2027-03-01T10:00:00Z"))
            // Before it is due: nothing.
            #expect(try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-01T09:59:59Z")).isEmpty)
            for day in 1...7 {
                let now = Self.at(String(format: "2027-03-%02dT10:00:05Z", day))
                let runs = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: now)
                #expect(runs.count == 1 && runs.first?.outcome == .started && runs.first?.run == day, "\(runs)")
                let run = try #require(runs.first)
                let runCampaign = try #require(run.campaignID)
                let campaign = try #require(try await h.store.campaigns.get(publicID: runCampaign))
                #expect(campaign.state == .scheduled && campaign.sendAt == Self.at(String(format: "2027-03-%02dT10:00:00Z", day)))
                #expect(campaign.name == String(format: "Daily deals · 2027-03-%02d", day))
                #expect(campaign.series == Campaign.SeriesLink(id: series.publicID, run: day))
                #expect(campaign.templateVersion != nil, "scheduled: its template version is pinned")
                try await Self.finish(h, run)
            }
            let after = try #require(try await h.store.series.get(publicID: series.publicID))
            #expect(after.runsStarted == 7 && after.next?.date == "2027-03-08" && after.state == .active)
            let runs = try await h.store.series.runs(seriesID: series.id, limit: 50)
            #expect(runs.map(\.run) == Array((1...7).reversed()))
        }
    }

    @Test func aRunDueWhileThePreviousStillSendsIsSkippedAndRecorded() async throws {
        try await EngineHarness.with { h in
            let series = try await h.store.series.create(
                name: "Daily deals", blueprint: Self.blueprint(h), recurrence: Self.daily, actor: "test",
                now: Self.at("2027-02-28T12:00:00Z"))
            let first = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-01T10:00:01Z"))
            #expect(first.first?.outcome == .started)
            // Run 1's campaign is still scheduled (no engine ran it): run 2 is skipped.
            let second = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-02T10:00:01Z"))
            #expect(second.count == 1 && second.first?.outcome == .skipped && second.first?.campaignID == nil, "\(second)")
            let firstCampaign = try #require(first.first?.campaignID)
            #expect(second.first?.reason?.contains(firstCampaign.uuidString.lowercased()) == true)
            try await Self.finish(h, try #require(first.first))
            let third = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-03T10:00:01Z"))
            #expect(third.first?.outcome == .started && third.first?.run == 3, "\(third)")
            let after = try #require(try await h.store.series.get(publicID: series.publicID))
            #expect(after.runsStarted == 2)
            let audit = try await h.store.client.query(
                "SELECT count(*) FROM audit_log WHERE action = 'series.run' AND details->>'outcome' = 'skipped'"
            ).collect().first?.decode(Int64.self)
            #expect(audit == 1)
        }
    }

    @Test func runsWhoseHourPassedWhileNoEngineRanAreMissedNotSentLate() async throws {
        try await EngineHarness.with { h in
            let series = try await h.store.series.create(
                name: "Daily deals", blueprint: Self.blueprint(h), recurrence: Self.daily, actor: "test",
                now: Self.at("2027-02-28T12:00:00Z"))
            // Down from 1 March 09:00 to 3 March 10:30: runs 1 and 2 are missed, run 3 starts (within its hour).
            let runs = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-03T10:30:00Z"))
            #expect(runs.map(\.outcome) == [.missed, .missed, .started], "\(runs)")
            #expect(runs.map(\.date) == ["2027-03-01", "2027-03-02", "2027-03-03"])
            let after = try #require(try await h.store.series.get(publicID: series.publicID))
            #expect(after.next?.date == "2027-03-04" && after.runsStarted == 1)
        }
    }

    @Test func restartsAndTwoInstancesNeverStartARunTwice() async throws {
        try await EngineHarness.with { h in
            let series = try await h.store.series.create(
                name: "Daily deals", blueprint: Self.blueprint(h), recurrence: Self.daily, actor: "test",
                now: Self.at("2027-02-28T12:00:00Z"))
            let now = Self.at("2027-03-01T10:00:01Z")
            // Two instances, each with its own pool, claim at the same moment.
            let other = try Store(configuration: h.configuration, logger: h.logs.logger())
            let recorded = try await other.client.whileRunning {
                try await withThrowingTaskGroup(of: [SeriesRun].self) { group in
                    for work in [h.store.campaignWork, other.campaignWork] {
                        group.addTask { try await work.runDueSeries(limit: 8, actor: "engine", now: now) }
                    }
                    return try await group.reduce(into: [SeriesRun]()) { $0 += $1 }
                }
            }
            #expect(recorded.count == 1, "\(recorded)")
            // An instance restarting mid-series finds the run done and nothing due.
            let restarted = try Store(configuration: h.configuration, logger: h.logs.logger())
            let again = try await restarted.client.whileRunning {
                try await restarted.campaignWork.runDueSeries(limit: 8, actor: "engine", now: now.addingTimeInterval(60))
            }
            #expect(again.isEmpty)
            let campaigns = try await h.store.client.query(
                "SELECT count(*) FROM campaigns WHERE series_id = \(series.id)"
            ).collect().first?.decode(Int64.self)
            #expect(campaigns == 1)
        }
    }

    @Test func aSeriesWithANumberOfRunsFinishesAfterThem() async throws {
        try await EngineHarness.with { h in
            var twice = Self.daily
            twice.runs = 2
            let series = try await h.store.series.create(
                name: "Twice", blueprint: Self.blueprint(h), recurrence: twice, actor: "test",
                now: Self.at("2027-02-28T12:00:00Z"))
            for day in 1...2 {
                let runs = try await h.store.campaignWork.runDueSeries(
                    limit: 8, actor: "e1", now: Self.at("2027-03-0\(day)T10:00:01Z"))
                try await Self.finish(h, try #require(runs.first))
            }
            let after = try #require(try await h.store.series.get(publicID: series.publicID))
            #expect(after.state == .finished && after.next == nil && after.runsStarted == 2)
            #expect(try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-09T10:00:01Z")).isEmpty)
        }
    }

    @Test func aLocalTimeSeriesMakesLocalTimeRunsAndOverlapsOnlyWhenBehind() async throws {
        try await EngineHarness.with { h in
            var local = Self.daily
            local.timeZone = nil
            local.deviceLocalTime = true
            try await h.register(0..<4) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: ["Pacific/Kiritimati", "Europe/Paris", "America/New_York", "Pacific/Pago_Pago"][n], userID: nil,
                    attributes: ["firstName": "Ana"])
            }
            let series = try await h.store.series.create(
                name: "Local", blueprint: Self.blueprint(h), recurrence: local, actor: "test",
                now: Self.at("2027-02-27T12:00:00Z"))
            // 1 March 10:00 in UTC+14 is 28 February 20:00 UTC.
            #expect(series.next?.due == Self.at("2027-02-28T20:00:00Z"))
            let first = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-02-28T20:00:01Z"))
            let firstCampaign = try #require(first.first?.campaignID)
            let campaign = try #require(try await h.store.campaigns.get(publicID: firstCampaign))
            #expect(campaign.localDelivery == LocalDelivery(date: "2027-03-01", time: "10:00", latePolicy: .skip))
            // Started with its zones waiting: Kiritimati due, the others later.
            _ = try await h.store.campaignWork.startDueCampaigns(limit: 8, actor: "e1", now: Self.at("2027-02-28T20:00:02Z"))
            // The engine sends each zone at its hour: every chunk due by run 2's time is done.
            try await h.store.client.query(
                "UPDATE campaign_chunks SET state = 'done' WHERE campaign_id = \(campaign.id) AND not_before <= \(Self.at("2027-03-01T20:00:01Z"))")
            let waiting = try await h.store.client.query(
                "SELECT count(*) FROM campaign_chunks WHERE campaign_id = \(campaign.id) AND state = 'pending'"
            ).collect().first?.decode(Int64.self)
            #expect(waiting ?? 0 > 0, "Pago Pago's chunk still waits for its hour")
            // Run 2 comes due (1 March 20:00 UTC) while Pago Pago (UTC-11) still waits for 1 March 10:00 (21:00 UTC):
            // the previous run is not behind, so run 2 starts.
            let second = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-01T20:00:01Z"))
            #expect(second.first?.outcome == .started, "\(second)")
            // Run 3: run 2's Kiritimati chunk is due and not done (and so are some of run 2's): run 3 is skipped.
            let third = try await h.store.campaignWork.runDueSeries(limit: 8, actor: "e1", now: Self.at("2027-03-02T20:00:01Z"))
            #expect(third.first?.outcome == .skipped, "\(third)")
        }
    }
}
