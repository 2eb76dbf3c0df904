import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Testing

/// Campaign repositories on the fixture's database, and the steps campaign tests share.
extension StoreFixture {
    var campaigns: PostgresCampaignRepository { PostgresCampaignRepository(client: client, logger: TestDatabase.logger) }
    var work: PostgresCampaignWork { PostgresCampaignWork(client: client, logger: TestDatabase.logger) }

    /// A template with versions 1 ... `versions`, as a sync leaves it.
    func addTemplate(_ name: String, versions: Int = 1) async throws {
        try await client.query("INSERT INTO templates (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING")
        for version in 1...versions {
            let hash = ByteBuffer(bytes: Array("\(name) \(version)".utf8))
            try await client.query(
                """
                INSERT INTO template_versions (template_id, version, document, content_hash, default_language, created_by)
                SELECT id, \(Int32(version)), '{}'::jsonb, sha256(\(hash)), 'en', 'test' FROM templates WHERE name = \(name)
                ON CONFLICT DO NOTHING
                """)
        }
    }

    func draft(
        _ name: String = "Spring sale", audience: AudienceFilter = AudienceFilter(), sendAt: Date? = nil
    )
        -> CampaignDraft
    {
        CampaignDraft(appID: app.id, name: name, templateName: "welcome", audience: audience, sendAt: sendAt)
    }

    /// Registers tokens `numbers` in one import and returns their devices.
    @discardableResult
    func registerDevices(
        _ numbers: ClosedRange<Int>, registration: DeviceRegistration = StoreFixture.registration()
    ) async throws -> [Device] {
        _ = try await devices.importBatch(
            appID: app.id, items: numbers.map { DeviceImportItem(token: StoreFixture.token($0), registration: registration) })
        var found = [Device]()
        for number in numbers {
            found.append(try #require(try await devices.find(appID: app.id, token: StoreFixture.token(number))))
        }
        return found
    }

    /// A campaign created, scheduled and started by the scheduler, with its chunks.
    func runningCampaign(audience: AudienceFilter = AudienceFilter()) async throws -> Campaign {
        try await addTemplate("welcome")
        let created = try await campaigns.create(draft(audience: audience), actor: "test")
        _ = try await campaigns.transition(id: created.id, event: .schedule, actor: "test")
        let started = try await work.startDueCampaigns(limit: 1, actor: "scheduler")
        return try #require(started.first)
    }

    /// Runs every claimable chunk as the engine will: devices in batches by keyset, each batch
    /// marked in flight, then recorded with `outcome`; returns the device IDs in the order seen
    /// and the campaigns a chunk's completion completed.
    @discardableResult
    func run(
        _ campaign: Campaign, batch: Int = 7, outcome: (CampaignDevice) -> DeliveryOutcome = { _ in .accepted }
    ) async throws -> (seen: [Int64], completed: [Campaign]) {
        var seen = [Int64]()
        var completed = [Campaign]()
        while let lease = try await work.claimChunk(owner: "test", leaseDuration: .seconds(30)) {
            var cursor = lease.cursor
            while true {
                let devices = try await work.nextDevices(lease, filter: campaign.audience, after: cursor, limit: batch)
                guard let last = devices.last else { break }
                try await work.markInFlight(lease, upTo: last.id)
                let records = devices.map { device in
                    DeliveryRecord(
                        deviceID: device.id, outcome: outcome(device), apnsID: campaign.apnsID(forDevice: device.id),
                        language: device.languages.first, bucket: device.bucket)
                }
                _ = try await work.recordBatch(lease, records: records, invalidations: [], cursor: last.id)
                seen += devices.map(\.id)
                cursor = last.id
            }
            if let campaign = try await work.completeChunk(lease, actor: "test") { completed.append(campaign) }
        }
        return (seen, completed)
    }
}
