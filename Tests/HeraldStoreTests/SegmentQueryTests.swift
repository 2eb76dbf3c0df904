import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Each segment operator against hand-built devices on real PostgreSQL: missing attributes,
/// numbers stored as strings, dates that are not dates, behaviour from a ledger and events the
/// test writes.
@Suite struct SegmentQueryTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// Devices 1…6 with the attributes each test reads.
    static func devices(_ f: StoreFixture) async throws -> [Int64] {
        let people: [(languages: [String], userID: String?, attributes: [String: PayloadValue])] = [
            (["pt-BR", "en"], "u1", ["cartValue": .double(72.5), "plan": .string("pro"), "trialEnds": .string("2026-12-01T00:00:00Z")]),
            (["en-GB"], "u2", ["cartValue": .int(50), "plan": .string("team"), "trialEnds": .string("not a date")]),
            (["fr"], nil, ["cartValue": .string("90"), "plan": .string("professional")]),
            (["de", "pt"], nil, ["plan": .string("free"), "beta": .bool(true)]),
            (["ja"], "u5", [:]),
            ([], nil, ["trialEnds": .string("2027-02-30T00:00:00Z")]),
        ]
        var ids = [Int64]()
        for (index, person) in people.enumerated() {
            let (device, _) = try await f.devices.register(
                appID: f.app.id, token: StoreFixture.token(index + 1),
                registration: StoreFixture.registration(languages: person.languages, userID: person.userID, attributes: person.attributes))
            ids.append(device.id)
        }
        return ids
    }

    func matches(_ f: StoreFixture, _ json: String, _ ids: [Int64]) async throws -> [Int] {
        let segment = try Segment(json: try JSONReader.parse(Array(json.utf8)))
        let segments = PostgresSegments(client: f.client, logger: TestDatabase.logger)
        let found = try await segments.sample(appID: f.app.id, segment: segment, now: Self.now, limit: 100).map(\.id)
        #expect(try await segments.count(appID: f.app.id, segment: segment, now: Self.now) == found.count)
        return found.compactMap { id in ids.firstIndex(of: id).map { $0 + 1 } }
    }

    @Test(arguments: CitusTestDatabase.engines) func attributeOperatorsTreatMissingAndMistypedValuesAsUnknown(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let ids = try await Self.devices(f)
            let cases: [(String, [Int])] = [
                (#"{"attribute": "cartValue", "gt": 50}"#, [1]),  // "90" is a string: unknown
                (#"{"attribute": "cartValue", "gte": 50}"#, [1, 2]),
                (#"{"attribute": "cartValue", "lt": 60}"#, [2]),
                (#"{"not": {"attribute": "cartValue", "gt": 50}}"#, [2]),  // missing or mistyped: unknown, and not unknown too
                (#"{"attribute": "plan", "eq": "pro"}"#, [1]),
                (#"{"attribute": "plan", "ne": "pro"}"#, [2, 3, 4]),  // 5 and 6 have no plan
                (#"{"attribute": "plan", "in": ["pro", "free"]}"#, [1, 4]),
                (#"{"attribute": "plan", "startsWith": "pro"}"#, [1, 3]),
                (#"{"attribute": "plan", "contains": "ea"}"#, [2]),
                (#"{"attribute": "beta", "eq": true}"#, [4]),
                (#"{"attribute": "beta", "exists": false}"#, [1, 2, 3, 5, 6]),
                (#"{"attribute": "trialEnds", "lt": "2027-01-01T00:00:00Z"}"#, [1]),  // "not a date", Feb 30: unknown
                (#"{"attribute": "cartValue", "eq": 50}"#, [2]),
                (#"{"attribute": "cartValue", "eq": "90"}"#, [3]),
            ]
            for (json, expected) in cases {
                #expect(try await matches(f, json, ids) == expected, "\(json)")
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func deviceFieldsAndNesting(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let ids = try await Self.devices(f)
            let cases: [(String, [Int])] = [
                (#"{"language": "pt"}"#, [1, 4]),
                (#"{"language": "pt", "match": "first"}"#, [1]),
                (#"{"language": "en-GB"}"#, [2]),
                (#"{"language": "en"}"#, [1, 2]),
                (#"{"userID": {"exists": true}}"#, [1, 2, 5]),
                (#"{"userID": {"in": ["u2", "u9"]}}"#, [2]),
                (#"{"timeZone": ["Europe/Paris"]}"#, [1, 2, 3, 4, 5, 6]),
                (#"{"environment": "production"}"#, []),
                (#"{"authorization": {"statuses": ["authorized"], "allowsAlerts": true}}"#, [1, 2, 3, 4, 5, 6]),
                (#"{"any": [{"attribute": "plan", "eq": "free"}, {"language": "ja"}]}"#, [4, 5]),
                (#"{"all": [{"language": "pt"}, {"not": {"attribute": "beta", "exists": true}}]}"#, [1]),
            ]
            for (json, expected) in cases {
                #expect(try await matches(f, json, ids) == expected, "\(json)")
            }
            // An invalidated device never matches.
            try await f.invalidate(StoreFixture.token(1), reason: "Unregistered", daysAgo: 1)
            #expect(try await matches(f, #"{"language": "pt"}"#, ids) == [4])
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func behaviourComesFromTheLedgerAndTheEvents(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let ids = try await Self.devices(f)
            let day: TimeInterval = 86_400
            // Two statements, each of which a Citus cluster takes (the ledger's rows join their
            // devices for their parts; a CTE read by a correlated subquery it refuses).
            let campaignID = try await f.client.query(
                """
                INSERT INTO campaigns (app_id, name, state, template_name, public_id)
                VALUES (\(f.app.id), 'Welcome', 'draft', 'welcome', '3C4133DF-2DBA-418C-88EF-92260F82C4E8')
                RETURNING id
                """
            ).collect().first!.decode(Int64.self)
            try await f.client.query(
                """
                INSERT INTO deliveries (app_id, campaign_id, device_id, part, outcome, created_at)
                SELECT \(f.app.id), \(campaignID), d.id, v.part, d.outcome, d.at
                FROM unnest(\([ids[0], ids[1], ids[2]])::bigint[], \(["accepted", "accepted", "failed"])::text[],
                            \([Self.now - 2 * day, Self.now - 40 * day, Self.now - day])::timestamptz[]) AS d(id, outcome, at)
                JOIN devices v ON v.app_id = \(f.app.id) AND v.id = d.id
                """)
            try await f.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, apns_id, device_id, name, value)
                SELECT \(f.app.id), e.kind, sha256(e.kind::bytea || e.device::text::bytea), e.at,
                       CASE WHEN e.kind = 'opened' THEN gen_random_uuid() END, e.device, nullif(e.name, ''), nullif(e.value, -1)
                FROM unnest(\(["opened", "opened", "converted", "converted"])::text[], \([ids[0], ids[1], ids[0], ids[3]])::bigint[],
                            \([Self.now - day, Self.now - 45 * day, Self.now - 3 * day, Self.now - day])::timestamptz[],
                            \(["", "", "purchase", "signup"])::text[], \([-1, -1, 30.0, -1])::float8[])
                     AS e(kind, device, at, name, value)
                """)
            // Custom events: device 5's own, and user u2's that names no device (device 2 is u2's).
            try await f.client.query(
                """
                INSERT INTO events (app_id, kind, identity, occurred_at, device_id, user_id, name)
                VALUES (\(f.app.id), 'custom', sha256('d5'), \(Self.now - day), \(ids[4]), 'u5', 'cart_abandoned'),
                       (\(f.app.id), 'custom', sha256('u2'), \(Self.now - 10 * day), NULL, 'u2', 'cart_abandoned'),
                       (\(f.app.id), 'custom', sha256('u1'), \(Self.now - day), NULL, 'u1', 'signed_up')
                """)
            let cases: [(String, [Int])] = [
                (#"{"received": {}}"#, [1, 2]),
                (#"{"received": {"withinDays": 30}}"#, [1]),
                (#"{"received": {"campaign": "3C4133DF-2DBA-418C-88EF-92260F82C4E8"}}"#, [1, 2]),
                (#"{"received": {"campaign": "00000000-0000-0000-0000-000000000000"}}"#, []),
                (#"{"opened": {}}"#, [1, 2]),
                (#"{"not": {"opened": {"withinDays": 30}}}"#, [2, 3, 4, 5, 6]),
                (#"{"converted": {"event": "purchase", "minimumValue": 20}}"#, [1]),
                (#"{"converted": {"event": "purchase", "minimumValue": 40}}"#, []),
                (#"{"converted": {"withinDays": 2}}"#, [4]),
                (#"{"all": [{"received": {}}, {"not": {"converted": {}}}]}"#, [2]),
                (#"{"event": {"name": "cart_abandoned"}}"#, [2, 5]),
                (#"{"event": {"name": "cart_abandoned", "withinDays": 7}}"#, [5]),
                // Devices without a user (3, 4, 6) have not done it: true, not unknown.
                (#"{"not": {"event": {"name": "cart_abandoned"}}}"#, [1, 3, 4, 6]),
                (#"{"not": {"event": {"name": "signed_up"}}}"#, [2, 3, 4, 5, 6]),
                (#"{"any": [{"language": "fr"}, {"event": {"name": "cart_abandoned"}}, {"opened": {"withinDays": 30}}]}"#, [1, 2, 3, 5]),
            ]
            // The same answers on a Citus cluster, where events are looked up as a set
            // (docs/scaling.md, "Segments built from events").
            for (json, expected) in cases {
                #expect(try await matches(f, json, ids) == expected, "\(json)")
            }
        }
    }
}
