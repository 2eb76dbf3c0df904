import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// `/v1/series` over the real application and engine: a run due is created, started and sent
/// to the simulator; bad schedules and campaigns are refused naming the field; pause, resume
/// and stop.
@Suite(.serialized)
struct SeriesAPITests {
    static func body(
        campaign: String = #"{"templateName": "cart-reminder", "variables": {"storeName": "Acme"}}"#,
        schedule: String = #"{"frequency": "daily", "time": "10:00", "timeZone": "Europe/Paris"}"#
    ) -> String {
        """
        {"app": "\(EngineHarness.bundleID)", "name": "Daily deals", "campaign": \(campaign), "schedule": \(schedule)}
        """
    }

    @Test func aDueRunIsCreatedStartedAndSentThenShownWithItsSeries() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<10) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ana", "cartItemCount": .int(n)])
            }
            try await h.withAPI(engine: true) { api in
                let created = try await api.request(
                    .post, "/v1/series", key: api.marketingKey,
                    body: Self.body(
                        campaign:
                            #"{"templateName": "cart-reminder", "variables": {"storeName": "Acme"}, "audience": {"segment": {"attribute": "cartItemCount", "gte": 5}}}"#
                    ))
                #expect(created.status == .created, "\(created.body)")
                let id = try #require(created.json["id"] as? String)
                #expect(created.json["state"] as? String == "active")
                let next = try #require(created.json["nextRun"] as? [String: Any], "\(created.body)")
                #expect(next["date"] is String && next["dueAt"] is String)
                // Bring the next run's moment to now: the engine's scheduler creates and starts it.
                try await h.store.client.query(
                    "UPDATE campaign_series SET next_run_at = now() WHERE public_id = \(try #require(UUID(uuidString: id)))")
                try await h.store.client.query("SELECT pg_notify('herald_work', '')")
                try await h.waitFor("run 1 to start") {
                    let shown = try await api.request(.get, "/v1/series/\(id)", key: api.marketingKey)
                    let runs = shown.json["runs"] as? [[String: Any]] ?? []
                    return runs.first?["outcome"] as? String == "started"
                }
                let runs = try await api.request(.get, "/v1/series/\(id)", key: api.marketingKey).json["runs"] as? [[String: Any]]
                let campaign = try #require(runs?.first?["campaign"] as? String)
                try await h.waitFor("run 1 to complete") {
                    try await api.request(.get, "/v1/campaigns/\(campaign)", key: api.marketingKey).json["state"] as? String
                        == "completed"
                }
                let shown = try await api.request(.get, "/v1/campaigns/\(campaign)", key: api.marketingKey)
                let link = try #require(shown.json["series"] as? [String: Any], "\(shown.body)")
                #expect(link["id"] as? String == id && link["run"] as? Int == 1)
                let listed = try await api.request(.get, "/v1/series?app=\(EngineHarness.bundleID)", key: api.marketingKey)
                #expect((listed.json["series"] as? [[String: Any]])?.count == 1, "\(listed.body)")
            }
            #expect(Set(try h.received().map(\.token)) == Set((5..<10).map { EngineHarness.token($0).hex }))
        }
    }

    @Test func badSeriesAreRefusedNamingTheFieldAndStoreNothing() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let cases: [(String, String)] = [
                    (Self.body(schedule: #"{"frequency": "hourly", "time": "10:00"}"#), "schedule.frequency"),
                    (Self.body(schedule: #"{"frequency": "daily", "time": "24:00"}"#), "schedule.time"),
                    (Self.body(schedule: #"{"frequency": "weekly", "time": "10:00"}"#), "schedule.days"),
                    (Self.body(schedule: #"{"frequency": "weekly", "time": "10:00", "days": ["mon", "fun"]}"#), "schedule.days[1]"),
                    (Self.body(schedule: #"{"frequency": "monthly", "time": "10:00", "dayOfMonth": 0}"#), "schedule.dayOfMonth"),
                    (Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "timeZone": "Mars/Base"}"#), "schedule.timeZone"),
                    (
                        Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "timeZone": "UTC", "deviceLocalTime": true}"#),
                        "schedule.timeZone"
                    ),
                    (
                        Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "startsOn": "2027-05-01", "endsOn": "2027-04-01"}"#),
                        "schedule.endsOn"
                    ),
                    (
                        Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "startsOn": "2020-01-01", "endsOn": "2020-02-01"}"#),
                        "schedule.endsOn"
                    ),
                    (Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "startsOn": "2999-01-01"}"#), "schedule.startsOn"),
                    (Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "runs": 0}"#), "schedule.runs"),
                    (Self.body(schedule: #"{"frequency": "daily", "time": "10:00", "every": 2}"#), "schedule.every"),
                    (Self.body(campaign: #"{"templateName": "cart-reminder", "sendAt": "2027-01-01T00:00:00Z"}"#), "campaign.sendAt"),
                    (Self.body(campaign: #"{"templateName": "no-such-template"}"#), "campaign.templateName"),
                    (
                        Self.body(campaign: #"{"templateName": "cart-reminder", "audience": {"savedSegment": "Nobody"}}"#),
                        "campaign.audience.savedSegment"
                    ),
                    (Self.body(campaign: #"{"templateName": "cart-reminder", "rateLimit": -1}"#), "campaign.rateLimit"),
                    (Self.body(campaign: #"{}"#), "campaign.templateName"),
                    (
                        #"{"app": "\#(EngineHarness.bundleID)", "name": "x\u0000y", "campaign": {"templateName": "cart-reminder"}, "schedule": {"frequency": "daily", "time": "10:00"}}"#,
                        "name"
                    ),
                ]
                for (body, field) in cases {
                    let reply = try await api.request(.post, "/v1/series", key: api.marketingKey, body: body)
                    #expect(reply.status == .unprocessableContent, "\(field): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(field): \(reply.body)")
                }
                let stored = try await h.store.client.query(
                    "SELECT (SELECT count(*) FROM campaign_series) + (SELECT count(*) FROM campaigns)"
                ).collect().first?
                .decode(Int64.self)
                #expect(stored == 0)
                // App keys cannot touch series.
                #expect(try await api.request(.post, "/v1/series", key: api.appKey, body: Self.body()).status == .forbidden)
            }
        }
    }

    @Test func aSeriesIsPausedResumedAndStoppedForGood() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let created = try await api.request(.post, "/v1/series", key: api.marketingKey, body: Self.body())
                let id = try #require(created.json["id"] as? String, "\(created.body)")
                let paused = try await api.request(.post, "/v1/series/\(id)/pause", key: api.marketingKey)
                #expect(paused.status == .ok && paused.json["state"] as? String == "paused", "\(paused.body)")
                #expect(try await api.request(.post, "/v1/series/\(id)/pause", key: api.marketingKey).status == .conflict)
                let resumed = try await api.request(.post, "/v1/series/\(id)/resume", key: api.marketingKey)
                #expect(resumed.json["state"] as? String == "active" && resumed.json["nextRun"] != nil, "\(resumed.body)")
                let stopped = try await api.request(.post, "/v1/series/\(id)/stop", key: api.marketingKey)
                #expect(stopped.json["state"] as? String == "stopped" && stopped.json["nextRun"] == nil, "\(stopped.body)")
                #expect(try await api.request(.post, "/v1/series/\(id)/resume", key: api.marketingKey).status == .conflict)
                #expect(try await api.request(.get, "/v1/series/\(UUID().uuidString)", key: api.marketingKey).status == .notFound)
                #expect(try await api.request(.get, "/v1/series/not-a-uuid", key: api.marketingKey).status == .notFound)
                let audit = try await h.store.client.query(
                    "SELECT string_agg(action, ',' ORDER BY id) FROM audit_log WHERE action LIKE 'series.%'"
                ).collect().first?.decode(String.self)
                #expect(audit == "series.create,series.pause,series.resume,series.stop")
            }
        }
    }
}
