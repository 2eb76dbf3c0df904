import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Parts (migration 0029, docs/scaling.md "Parts"): each device's part is its bucket's sixteenth,
/// stored as a label whose int4 hash lies in its own sixteenth of the hash range, so a Citus
/// table distributed on it with 16 shards holds one part per shard.
@Suite struct DevicePartTests {
    @Test func eachPartsLabelHashesIntoItsOwnSixteenthOfTheRange() async throws {
        try await StoreFixture.with { f in
            let rows = try await f.client.query(
                """
                SELECT b / 16, herald_part(b), ((hashint4(herald_part(b))::bigint + 2147483648) / 268435456)::integer
                FROM generate_series(0, 255) AS b
                """
            ).collect().map { try $0.decode((Int32, Int32, Int32).self) }
            #expect(rows.count == 256)
            // Every bucket of a part has the part's label, and part n's label hashes into the n-th sixteenth.
            for (part, _, shard) in rows { #expect(part == shard, "part \(part) hashes into sixteenth \(shard)") }
            let labels = Dictionary(grouping: rows, by: \.0).mapValues { Set($0.map(\.1)) }
            #expect(labels.count == 16 && labels.values.allSatisfy { $0.count == 1 })
            #expect(Set(labels.values.map { $0.first! }).count == 16, "two parts share a label")
        }
    }

    @Test func aRegisteredOrImportedDeviceCarriesItsBucketsPart() async throws {
        try await StoreFixture.with { f in
            _ = try await f.devices.register(appID: f.app.id, token: StoreFixture.token(1), registration: StoreFixture.registration())
            _ = try await f.devices.importBatch(
                appID: f.app.id,
                items: (2...40).map { DeviceImportItem(token: StoreFixture.token($0), registration: StoreFixture.registration()) })
            let wrong = try await f.client.query(
                "SELECT count(*) FROM devices WHERE app_id = \(f.app.id) AND part <> herald_part(get_byte(sha256(token), 0))"
            ).collect().first!.decode(Int64.self)
            #expect(wrong == 0)
            // The database refuses a part that is not the bucket's.
            await #expect(throws: PSQLError.self) {
                try await f.client.query(
                    "UPDATE devices SET part = part + 1 WHERE app_id = \(f.app.id)"
                ).collect()
            }
        }
    }

    @Test func aChunkInsideOnePartNamesItAndOneAcrossPartsDoesNot() {
        #expect(DeviceBucket.part(of: 0...15) == 0)
        #expect(DeviceBucket.part(of: 240...255) == 15)
        #expect(DeviceBucket.part(of: 32...39) == 2)
        #expect(DeviceBucket.part(of: 0...255) == nil)
        #expect(DeviceBucket.part(of: 15...16) == nil)
        for chunk in 0..<CampaignChunking.chunkCount {
            #expect(DeviceBucket.part(of: CampaignChunking.buckets(ofChunk: chunk)) == chunk)
        }
    }
}
