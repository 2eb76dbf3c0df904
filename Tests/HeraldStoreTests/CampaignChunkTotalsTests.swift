import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldStore

/// A campaign's counters read at once and part by part (what a stopped Citus worker leads to)
/// come to the same figures: zones whose chunks lie in several parts are merged, and so are the
/// variants and failure reasons of chunks in different parts.
@Suite struct CampaignChunkTotalsTests {
    @Test(arguments: CitusTestDatabase.engines) func readingPartByPartGivesTheSameFigures(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let app = f.app.id
            let campaign = try await f.client.query(
                "INSERT INTO campaigns (app_id, name, template_name) VALUES (\(app), 'zones', 'welcome') RETURNING id"
            ).collect().first!.decode(Int64.self)
            // Paris in one chunk over every bucket (part 0); New York in two chunks of two parts,
            // one done and one pending; the sent-at-once chunk 3 in part 15.
            try await f.client.query(
                """
                INSERT INTO campaign_chunks (app_id, campaign_id, chunk, part, bucket_from, bucket_to, device_zone, time_zone,
                                             state, size, accepted, failed, skipped, held_out, failed_by_reason, not_before)
                VALUES
                    (\(app), \(campaign), 0, herald_part(0), 0, 255, 'Europe/Paris', 'Europe/Paris', 'done', 10, 7, 2, 0, 1,
                     '{"BadDeviceToken": 2}', NULL),
                    (\(app), \(campaign), 1, herald_part(0), 0, 127, 'America/New_York', 'America/New_York', 'done', 20, 15, 3, 2, 0,
                     '{"BadDeviceToken": 1, "Unregistered": 2}', NULL),
                    (\(app), \(campaign), 2, herald_part(128), 128, 255, 'America/New_York', 'America/New_York', 'pending', 30, 4, 1, 0, 0,
                     '{"Unregistered": 1}', '2999-01-01T00:00:00Z'),
                    (\(app), \(campaign), 3, herald_part(240), 240, 255, NULL, NULL, 'pending', NULL, 5, 0, 0, 0, '{}', NULL)
                """)
            try await f.client.query(
                """
                INSERT INTO campaign_chunk_variants (app_id, campaign_id, chunk, part, variant, accepted, failed)
                VALUES (\(app), \(campaign), 1, herald_part(0), 0, 10, 3), (\(app), \(campaign), 1, herald_part(0), 1, 5, 0),
                       (\(app), \(campaign), 2, herald_part(128), 1, 4, 1), (\(app), \(campaign), 3, herald_part(240), 0, 5, 0)
                """)
            let run: (PostgresQuery) async throws -> PostgresRowSequence = { try await f.client.query($0) }
            let key = [(appID: app, id: campaign)]
            let whole = try #require(try await CampaignChunkTotals.read(key, reading: .whole, run: run)[campaign])
            let byPart = try #require(try await CampaignChunkTotals.read(key, reading: .partByPart, run: run)[campaign])
            #expect(byPart == whole)
            #expect(try await CampaignChunkTotals.read(key, reading: .passingUnreachable, run: run)[campaign] == whole)

            #expect(whole.accepted == 31 && whole.failed == 6 && whole.skipped == 2 && whole.heldOut == 1 && !whole.partial)
            #expect(whole.failedByReason == ["BadDeviceToken": 3, "Unregistered": 3])
            #expect(whole.variants == [[0, 15, 3, 0, 0, 0], [1, 9, 1, 0, 0, 0]])
            #expect(whole.zones.map(\.timeZone) == ["America/New_York", "Europe/Paris"])
            let newYork = whole.zones[0]
            #expect(newYork.devices == 50 && newYork.done == 25 && newYork.state == .waiting)
            #expect(newYork.notBefore == ISO8601DateFormatter().date(from: "2999-01-01T00:00:00Z"))
            #expect(whole.zones[1].state == .done && whole.zones[1].done == 10)
        }
    }
}
