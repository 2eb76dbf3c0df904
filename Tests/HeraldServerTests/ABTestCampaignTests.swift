import APNSCore
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// A/B tests end to end: variants and a holdout through the API, the engine and the simulator,
/// then opens and conversions reported by the app and the campaign's report.
@Suite(.serialized) struct ABTestCampaignTests {
    static let devices = 3_000

    static func registration(_ n: Int) throws -> DeviceRegistration {
        try DeviceRegistration(
            environment: .production, languages: [["en"], ["de"], ["ja"]][n % 3],
            authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
            timeZone: nil, userID: "user-\(n)", attributes: ["firstName": "Ana", "cartItemCount": 2])
    }

    static let abCampaign = #"""
        {"app": "com.example.herald", "name": "Cart or sale", "templateName": "cart-reminder",
         "variables": {"storeName": "Acme"},
         "variants": [
           {"name": "cart", "weight": 1},
           {"name": "sale", "templateName": "flash-sale", "weight": 1,
            "variables": {"percentOff": 20, "endTime": "midnight", "storeName": "Beta"},
            "pushOptions": {"category": "SALE_AB"}}
         ],
         "holdoutPercent": 10, "attributionWindowHours": 48}
        """#

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    @Test func variantsAndAHoldoutSplitTheAudienceAndTheReportComparesThem() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<Self.devices, Self.registration)
            try await h.withAPI(engine: true) { api in
                let created = try await api.request(.post, "/v1/campaigns", key: api.marketingKey, body: Self.abCampaign)
                #expect(created.status == .created, "\(created.body)")
                let id = try #require(created.json["id"] as? String)
                #expect(created.json["holdoutPercent"] as? Double == 10)
                #expect(created.json["attributionWindowHours"] as? Int == 48)
                let scheduled = try await api.request(.post, "/v1/campaigns/\(id)/schedule", key: api.marketingKey)
                #expect(scheduled.status == .ok, "\(scheduled.body)")
                let pinned = try #require(scheduled.json["variants"] as? [[String: Any]])
                #expect(pinned.allSatisfy { ($0["templateVersion"] as? Int) == 1 }, "every variant's version is pinned")
                try await h.waitFor("the campaign to complete") {
                    try await api.request(.get, "/v1/campaigns/\(id)", key: api.marketingKey).json["state"] as? String
                        == "completed"
                }
                let publicID = try #require(UUID(uuidString: id))
                let campaign = try #require(try await h.store.campaigns.get(publicID: publicID))

                // Every device's row is the pure function of its apns-id: held out, or its message.
                let rows = try await h.deliveries(campaign.id)
                let variants = try await h.variants(campaign.id)
                #expect(rows.count == Self.devices)
                var groups = [Int?: Int]()
                for (device, row) in rows {
                    let assignment = campaign.split.assignment(apnsID: campaign.apnsID(forDevice: device))
                    switch assignment {
                    case .heldOut:
                        #expect(row == DeliveryRow(outcome: "heldOut"))
                        let stored = try #require(variants[device])
                        #expect(stored == nil)
                        groups[nil, default: 0] += 1
                    case .variant(let index):
                        #expect(row.outcome == "accepted" && row.apnsID == campaign.apnsID(forDevice: device))
                        let stored = try #require(variants[device])
                        #expect(stored == index)
                        groups[index, default: 0] += 1
                    }
                }
                // 10 % / 45 % / 45 %: three standard deviations is under 2 points at 3,000 devices.
                #expect(abs(Double(groups[nil] ?? 0) / Double(Self.devices) - 0.10) < 0.02, "\(groups)")
                #expect(abs(Double(groups[0] ?? 0) / Double(Self.devices) - 0.45) < 0.03, "\(groups)")

                // The held-out got nothing; each variant got its own template, variables and options.
                let ids = try await CampaignEngineTests.deviceIDs(h)
                let received = try h.received()
                #expect(received.count == (groups[0] ?? 0) + (groups[1] ?? 0))
                for notification in received {
                    let device = try #require(ids[notification.token])
                    let variant = try #require(variants[device] ?? nil)
                    if variant == 0 {
                        #expect(notification.payload.contains("\"category\":\"CART\"") && notification.payload.contains("Acme"))
                    } else {
                        #expect(notification.payload.contains("\"category\":\"SALE_AB\"") && notification.payload.contains("Beta"))
                    }
                }
                let counters = campaign.counters
                #expect(counters.heldOut == groups[nil] && counters.addsUp)
                #expect(counters.variants.map(\.name) == ["cart", "sale"])
                #expect(counters.variants.map(\.accepted) == [groups[0] ?? 0, groups[1] ?? 0])

                // The ledger names each row's message.
                let ledger = try await api.request(
                    .get, "/v1/campaigns/\(id)/deliveries?outcome=heldOut&limit=5", key: api.marketingKey)
                let heldRows = try #require(ledger.json["deliveries"] as? [[String: Any]])
                #expect(heldRows.count == 5 && heldRows.allSatisfy { $0["variant"] == nil && $0["apnsID"] == nil })
                let sentPage = try await api.request(
                    .get, "/v1/campaigns/\(id)/deliveries?outcome=accepted&limit=50", key: api.marketingKey)
                let sentRows = try #require(sentPage.json["deliveries"] as? [[String: Any]])
                #expect(sentRows.count == 50)
                for row in sentRows {
                    let device = Int64(try #require(row["deviceID"] as? Int))
                    let stored = try #require(variants[device] ?? nil)
                    #expect(row["variant"] as? String == ["cart", "sale"][stored])
                }

                // The app reports: opens of every 4th "cart" device and every 8th "sale" device,
                // conversions from every 10th device of each group (held out included), by token
                // for even devices and by user ID for odd ones.
                var tokensByDevice = [Int64: String]()
                for (token, device) in ids { tokensByDevice[device] = token }
                var opens = [String]()
                var conversions = [String]()
                var expectedOpens = [0, 0]
                var expectedConverted = [Int?: Int]()
                let now = Date()
                for device in rows.keys.sorted() {
                    let variant = variants[device] ?? nil
                    let token = try #require(tokensByDevice[device])
                    if let variant, Int(device) % (variant == 0 ? 4 : 8) == 0 {
                        opens.append(
                            #"{"type": "opened", "apnsID": "\#(campaign.apnsID(forDevice: device).canonicalString)", "occurredAt": "\#(Self.iso(now))"}"#
                        )
                        expectedOpens[variant] += 1
                    }
                    if device % 10 == 3 {
                        let who =
                            device % 2 == 0 ? #""token": "\#(token)""# : #""userID": "user-\#(try Self.number(token))""#
                        conversions.append(
                            #"{"type": "converted", "name": "purchase", "value": 12.5, \#(who), "occurredAt": "\#(Self.iso(now))"}"#)
                        expectedConverted[variant, default: 0] += 1
                    }
                }
                let events = opens + conversions
                var stored = 0
                for start in stride(from: 0, to: events.count, by: 500) {
                    let batch = events[start..<min(start + 500, events.count)]
                    let reply = try await api.request(
                        .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey,
                        body: #"{"events": [\#(batch.joined(separator: ","))]}"#)
                    #expect(reply.status == .ok, "\(reply.body)")
                    stored += reply.json["stored"] as? Int ?? 0
                    #expect(reply.json["attributed"] as? Int == batch.count)
                }
                #expect(stored == events.count)

                // The same events again count once.
                let again = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey,
                    body: #"{"events": [\#(opens.prefix(3).joined(separator: ",")), \#(conversions.prefix(2).joined(separator: ","))]}"#)
                #expect(again.json["stored"] as? Int == 0 && again.json["duplicates"] as? Int == 5)

                let report = try await api.request(.get, "/v1/campaigns/\(id)/report", key: api.marketingKey)
                #expect(report.status == .ok, "\(report.body)")
                let lines = try #require(report.json["variants"] as? [[String: Any]])
                #expect(lines.map { $0["name"] as? String } == ["cart", "sale"])
                for (index, line) in lines.enumerated() {
                    let opened = try #require(line["opened"] as? [String: Any])
                    #expect(opened["count"] as? Int == expectedOpens[index])
                    #expect(opened["of"] as? Int == groups[index])
                    let rate = try #require(opened["rate"] as? Double)
                    #expect(try #require(opened["low"] as? Double) < rate && rate < (opened["high"] as? Double ?? 0))
                    let converted = try #require(line["converted"] as? [String: Any])
                    #expect(converted["count"] as? Int == expectedConverted[index])
                    #expect(line["conversions"] as? Int == expectedConverted[index])
                    #expect(line["conversionValue"] as? Double == 12.5 * Double(expectedConverted[index] ?? 0))
                }
                let holdout = try #require(report.json["holdout"] as? [String: Any])
                #expect(holdout["assigned"] as? Int == groups[nil])
                #expect((holdout["converted"] as? [String: Any])?["count"] as? Int == expectedConverted[nil])
                let comparisons = try #require(report.json["comparisons"] as? [[String: Any]])
                // cart vs holdout, sale vs holdout (conversions); cart vs sale (opens, conversions).
                #expect(comparisons.count == 4)
                let openTest = try #require(comparisons.first { $0["metric"] as? String == "openRate" })
                // 25 % against 12.5 % over ~1,350 devices each is far beyond chance.
                #expect(openTest["significant"] as? Bool == true && (openTest["pValue"] as? Double ?? 1) < 0.001)
                let byLanguage = try #require(report.json["openedByLanguage"] as? [String: Int])
                #expect(byLanguage.values.reduce(0, +) == expectedOpens.reduce(0, +))

                // The CLI shows the same table.
                let show = try await CLITests().herald(["campaigns", "show", id], database: h.configuration.databaseURL)
                #expect(show.status == 0, "\(show.stderr)")
                #expect(show.stdout.contains("variant cart: weight 1, cart-reminder v1"))
                #expect(show.stdout.contains("variant sale: weight 1, flash-sale v1"))
                #expect(show.stdout.contains("holdout:   10.00%"))
                #expect(show.stdout.contains("held out \(groups[nil] ?? 0)"))
                let cartLine = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("  cart ") })
                #expect(cartLine.contains(" \(groups[0] ?? 0) ") && cartLine.contains("\(expectedOpens[0]) ("), "\(show.stdout)")
                #expect(show.stdout.contains("open rate cart vs sale: +") && show.stdout.contains("significant"), "\(show.stdout)")
            }
        }
    }

    /// The device number a harness token was made from.
    static func number(_ token: String) throws -> Int {
        Int(try #require(UInt64(token.prefix(16), radix: 16)))
    }

    /// Each bad A/B setting or event is a 422 naming its field, and stores nothing.
    @Test func badVariantsAndEventsAreRefusedNamingTheFieldAndStoreNothing() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<20, Self.registration)
            try await h.withAPI(engine: true) { api in
                func campaignCount() async throws -> Int64 {
                    try await h.store.client.query("SELECT count(*) FROM campaigns").collect().first!.decode(Int64.self)
                }
                let base = #""app": "com.example.herald", "name": "AB", "templateName": "cart-reminder""#
                let one = #"{"name": "A"}"#
                let badCampaigns: [(String, String)] = [
                    (#""variants": [\#(one)]"#, "variants"),
                    (#""variants": [\#(Array(repeating: one, count: 6).joined(separator: ","))]"#, "variants"),
                    (#""variants": [{"name": "A", "weight": 0}, {"name": "B"}]"#, "variants[0].weight"),
                    (#""variants": [{"name": "A", "weight": -2}, {"name": "B"}]"#, "variants[0].weight"),
                    (#""variants": [{"name": "A", "weight": 1.5}, {"name": "B"}]"#, "variants[0].weight"),
                    (#""variants": [{"name": "A"}, {"name": "a"}]"#, "variants[1].name"),
                    (#""variants": [{"name": "A\u0000"}, {"name": "B"}]"#, "variants[0].name"),
                    (#""variants": [{"name": "A", "colour": "red"}, {"name": "B"}]"#, "variants[0].colour"),
                    (#""variants": [{"name": "A", "templateName": "No Such"}, {"name": "B"}]"#, "variants[0].templateName"),
                    (#""variants": [{"name": "A", "pushOptions": {"timeToLive": -1}}, {"name": "B"}]"#, "variants[0].pushOptions.timeToLive"),
                    (#""variants": "A,B""#, "variants"),
                    (#""holdoutPercent": 50.5"#, "holdoutPercent"),
                    (#""holdoutPercent": -1"#, "holdoutPercent"),
                    (#""holdoutPercent": "10""#, "holdoutPercent"),
                    (#""attributionWindowHours": 0"#, "attributionWindowHours"),
                    (#""attributionWindowHours": 721"#, "attributionWindowHours"),
                ]
                let before = try await campaignCount()
                for (fields, field) in badCampaigns {
                    let reply = try await api.request(.post, "/v1/campaigns", key: api.marketingKey, body: "{\(base), \(fields)}")
                    #expect(reply.status == .unprocessableContent, "\(fields): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(fields): \(reply.body)")
                }
                #expect(try await campaignCount() == before)

                // A variant naming a version its template does not have is refused at schedule.
                let draft = try await api.request(
                    .post, "/v1/campaigns", key: api.marketingKey,
                    body: #"{\#(base), "variants": [{"name": "A"}, {"name": "B", "templateVersion": 9}]}"#)
                let draftID = try #require(draft.json["id"] as? String)
                let refused = try await api.request(.post, "/v1/campaigns/\(draftID)/schedule", key: api.marketingKey)
                #expect(refused.status == .unprocessableContent && refused.json["field"] as? String == "variants[1].templateVersion")
                let after = try await api.request(.get, "/v1/campaigns/\(draftID)", key: api.marketingKey)
                #expect(after.json["state"] as? String == "draft")

                // A real campaign, so that a good apns-id exists.
                let campaign = try await h.scheduledCampaign()
                try await h.waitFor("the campaign to complete") { try await h.campaign(campaign.id).state == .completed }
                let device = try #require(try await h.deliveries(campaign.id).keys.min())
                let good =
                    #"{"type": "opened", "apnsID": "\#(campaign.apnsID(forDevice: device).canonicalString)", "occurredAt": "\#(Self.iso(Date()))"}"#
                let badEvents: [(String, String)] = [
                    (#"{"type": "opened", "apnsID": "\#(UUID().uuidString)", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].apnsID"),
                    (#"{"type": "opened", "apnsID": "not-a-uuid", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].apnsID"),
                    (#"{"type": "opened", "apnsID": "\#(UUID().uuidString)", "occurredAt": "2999-01-01T00:00:00Z"}"#, "events[1].occurredAt"),
                    (#"{"type": "opened", "apnsID": "\#(UUID().uuidString)", "occurredAt": "1999-01-01T00:00:00Z"}"#, "events[1].occurredAt"),
                    (#"{"type": "opened", "apnsID": "\#(UUID().uuidString)"}"#, "events[1].occurredAt"),
                    (#"{"type": "clicked", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].type"),
                    (#"{"type": "converted", "name": "purchase", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].token"),
                    (#"{"type": "converted", "name": "", "userID": "u", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].name"),
                    (#"{"type": "converted", "name": "buy\u0007", "userID": "u", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].name"),
                    (#"{"type": "converted", "name": "buy", "value": "12", "userID": "u", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].value"),
                    (
                        #"{"type": "converted", "name": "buy", "value": 1e300, "userID": "u", "occurredAt": "\#(Self.iso(Date()))"}"#,
                        "events[1].value"
                    ),
                    (#"{"type": "converted", "name": "buy", "token": "xyz", "occurredAt": "\#(Self.iso(Date()))"}"#, "events[1].token"),
                    (#"{"type": "opened", "apnsID": "\#(UUID().uuidString)", "occurredAt": "\#(Self.iso(Date()))", "extra": 1}"#, "events[1].extra"),
                    (#"7"#, "events[1]"),
                ]
                func eventCount() async throws -> Int64 {
                    try await h.store.client.query("SELECT count(*) FROM events").collect().first!.decode(Int64.self)
                }
                for (event, field) in badEvents {
                    let reply = try await api.request(
                        .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey,
                        body: #"{"events": [\#(good), \#(event)]}"#)
                    #expect(reply.status == .unprocessableContent, "\(event): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(event): \(reply.body)")
                }
                let tooMany = Array(repeating: good, count: 1001).joined(separator: ",")
                let big = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey, body: #"{"events": [\#(tooMany)]}"#)
                #expect(big.status == .unprocessableContent && big.json["field"] as? String == "events", "\(big.status) \(big.body.prefix(300))")
                #expect(try await eventCount() == 0)

                // Events come from the app: not from marketing, not for another app.
                let marketing = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.marketingKey, body: #"{"events": [\#(good)]}"#)
                #expect(marketing.status == .forbidden)
                let ok = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/events", key: api.appKey, body: #"{"events": [\#(good)]}"#)
                #expect(ok.status == .ok && ok.json["stored"] as? Int == 1, "\(ok.body)")
            }
        }
    }

    /// A conversion goes to the latest campaign that reached the device (by token, or any of a
    /// user's devices) within that campaign's window, and to none when all are older.
    @Test func conversionsGoToTheLatestCampaignWithinItsWindow() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<4, Self.registration)
            let first = try await h.runToEnd(try await h.scheduledCampaign())
            let second = try await h.runToEnd(try await h.scheduledCampaign())
            let ids = try await CampaignEngineTests.deviceIDs(h)
            func device(_ n: Int) throws -> Int64 { try #require(ids[EngineHarness.token(n).hex]) }
            // Device 1's notification of the second campaign is 30 hours old: past its 24-hour window.
            try await h.store.client.query(
                "UPDATE deliveries SET created_at = now() - interval '30 hours' WHERE campaign_id = \(second.id) AND device_id = \(try device(1))")
            // Device 2's notifications are both too old.
            try await h.store.client.query(
                "UPDATE deliveries SET created_at = now() - interval '30 hours' WHERE device_id = \(try device(2))")
            let now = Date()
            let receipt = try await h.store.events.record(
                appID: h.app.id,
                events: [
                    AppEvent(kind: .converted(name: "buy", value: 5), occurredAt: now, token: EngineHarness.token(0)),
                    AppEvent(kind: .converted(name: "buy", value: 5), occurredAt: now, token: EngineHarness.token(1)),
                    AppEvent(kind: .converted(name: "buy", value: 5), occurredAt: now, token: EngineHarness.token(2)),
                    AppEvent(kind: .converted(name: "buy", value: 5), occurredAt: now, userID: "user-3"),
                    AppEvent(kind: .converted(name: "buy", value: 5), occurredAt: now, userID: "nobody"),
                ])
            #expect(receipt == EventReceipt(stored: 5, duplicates: 0, attributed: 3))
            let rows = try await h.store.client.query("SELECT device_id, user_id, campaign_id FROM events ORDER BY id")
            var found = [(Int64?, String?, Int64?)]()
            for try await row in rows.decode((Int64?, String?, Int64?).self) { found.append(row) }
            #expect(found.count == 5)
            #expect(found[0] == (try device(0), nil, second.id))
            #expect(found[1] == (try device(1), nil, first.id))
            #expect(found[2] == (try device(2), nil, nil))
            #expect(found[3] == (try device(3), "user-3", second.id))
            #expect(found[4] == (nil, "nobody", nil))
            let totals = try await h.store.events.totals(campaignID: second.id)
            #expect(totals.group(0).conversions == 2 && totals.group(0).convertedDevices == 2 && totals.group(0).value == 10)
        }
    }

    /// A user ID shared by 4,000 devices (a placeholder such as `guest`): 1,000 conversions for
    /// it are attributed in one query over the user's 20 newest devices, never over every pair
    /// of event and device. Here the newest devices' notifications are the oldest, so counting
    /// every device would attribute elsewhere.
    @Test func conversionsOfAUserSharedByThousandsOfDevicesLookAtItsNewestDevicesOnly() async throws {
        try await EngineHarness.with { h in
            try await h.register(0..<4_000) { n in
                var registration = try Self.registration(n)
                registration.userID = "guest"
                return registration
            }
            let campaign = try await h.runToEnd(try await h.scheduledCampaign())
            let newest = try await h.store.client.query(
                "SELECT id FROM devices WHERE user_id = 'guest' ORDER BY id DESC LIMIT 20"
            ).collect().map { try $0.decode(Int64.self) }
            try await h.store.client.query(
                "UPDATE deliveries SET created_at = now() - interval '2 hours' WHERE device_id = ANY (\(newest)::bigint[])")
            try await h.store.client.query(
                "UPDATE deliveries SET created_at = now() - interval '1 hour' WHERE NOT device_id = ANY (\(newest)::bigint[])")
            let accepted = try await h.store.client.query(
                "SELECT count(*) FROM deliveries WHERE device_id = ANY (\(newest)::bigint[]) AND outcome IN ('accepted', 'heldOut')"
            ).collect().first?.decode(Int64.self)
            try #require(accepted ?? 0 > 0, "none of the newest devices was reached")
            let now = Date()
            let events = (0..<1000).map { n in
                AppEvent(kind: .converted(name: "buy", value: 1), occurredAt: now.addingTimeInterval(-Double(n)), userID: "guest")
            }
            let receipt = try await h.store.events.record(appID: h.app.id, events: events)
            #expect(receipt == EventReceipt(stored: 1000, duplicates: 0, attributed: 1000))
            let outside = try await h.store.client.query(
                "SELECT count(*) FROM events WHERE campaign_id = \(campaign.id) AND NOT device_id = ANY (\(newest)::bigint[])"
            ).collect().first?.decode(Int64.self)
            #expect(outside == 0)
        }
    }
}
