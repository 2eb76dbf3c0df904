import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// `GET` and `PATCH /v1/apps/{bundleID}`: what campaigns obey, set by admins without SQL.
@Suite(.serialized) struct AppSettingsAPITests {
    @Test func adminsSetZonesQuietHoursAndCapsAndBadValuesChangeNothing() async throws {
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)"
                let shown = try await api.request(.get, path, key: api.marketingKey)
                #expect(shown.status == .ok && shown.json["bundleID"] as? String == EngineHarness.bundleID)
                #expect(shown.json["frequencyCaps"] as? [String] == [] && shown.json["quietHours"] == nil)
                #expect(!shown.body.contains("PRIVATE") && !shown.body.lowercased().contains("signing"))
                #expect(try await api.request(.get, path, key: api.appKey).status == .ok)

                let set = try await api.request(
                    .patch, path, key: api.adminKey,
                    body: #"{"defaultTimeZone": "Europe/Berlin", "quietHours": "21:00-08:00", "frequencyCaps": ["3/7d", "1/12h"]}"#)
                #expect(set.status == .ok, "\(set.body)")
                #expect(set.json["defaultTimeZone"] as? String == "Europe/Berlin" && set.json["quietHours"] as? String == "21:00-08:00")
                #expect(set.json["frequencyCaps"] as? [String] == ["3/7d", "1/12h"])
                let stored = try #require(try await h.store.apps.find(id: h.app.id))
                #expect(stored.quietHours == QuietHours(start: 21 * 60, end: 8 * 60) && stored.frequencyCaps.count == 2)

                let bad: [(String, String)] = [
                    (#"{"quietHours": "21:00-21:00"}"#, "quietHours"),
                    (#"{"quietHours": "9pm"}"#, "quietHours"),
                    (#"{"defaultTimeZone": "Mars/Olympus"}"#, "defaultTimeZone"),
                    (#"{"defaultTimeZone": 5}"#, "defaultTimeZone"),
                    (#"{"frequencyCaps": ["0/7d"]}"#, "frequencyCaps[0]"),
                    (#"{"frequencyCaps": ["3/7d", 3]}"#, "frequencyCaps[1]"),
                    (#"{"frequencyCaps": "3/7d"}"#, "frequencyCaps"),
                    (#"{"frequencyCaps": ["1/1d", "1/1d", "1/1d", "1/1d", "1/1d", "1/1d"]}"#, "frequencyCaps"),
                    (#"{"teamID": "ABCDEFGHIJ"}"#, "teamID"),
                ]
                for (body, field) in bad {
                    let reply = try await api.request(.patch, path, key: api.adminKey, body: body)
                    #expect(reply.status == .unprocessableContent && reply.json["field"] as? String == field, "\(body): \(reply.body)")
                }
                #expect(try await api.request(.patch, path, key: api.marketingKey, body: "{}").status == .forbidden)
                #expect(try await api.request(.patch, path, key: api.appKey, body: "{}").status == .forbidden)
                #expect(try await h.store.apps.find(id: h.app.id) == stored, "a refused change changed something")

                // null clears; fields left out stay.
                let cleared = try await api.request(.patch, path, key: api.adminKey, body: #"{"quietHours": null, "frequencyCaps": null}"#)
                #expect(cleared.status == .ok && cleared.json["quietHours"] == nil && cleared.json["frequencyCaps"] as? [String] == [])
                #expect(cleared.json["defaultTimeZone"] as? String == "Europe/Berlin")
                #expect(try await api.request(.get, "/v1/apps/com.example.nope", key: api.adminKey).status == .notFound)
            }
        }
    }
}
