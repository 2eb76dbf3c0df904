import Foundation
import HeraldStore
import HeraldTestSupport
import Testing

/// Migrations that have shipped are never edited: a database that applied one refuses to start
/// when its file changes (its checksum is recorded). This pins each shipped file's SHA-256, so an
/// edit fails here first; a change to the schema is a new migration. A new migration is added
/// to the list when it ships.
@Suite struct ShippedMigrationsTests {
    static let shipped: [(String, String)] = [
        ("0001_create_registry.sql", "d86aaaaff4bf342ba607c2d621b0a47dd10af7d7d6a7318798ba465b44644978"),
        ("0002_create_templates.sql", "f1ba9ee6073a3b8cea27407f084569fae3d111055fe0709b59abc729a2021756"),
        ("0003_create_campaigns.sql", "a85641f8110ec3ac4671f14de735d635a404fe82ef1e7f6f8ec22aca564bce07"),
        ("0004_create_notifications.sql", "c60aa5b92eb64e55487420e80aa79b45e2ab4735ac07a499f46ba5d6a6756f7d"),
        ("0005_index_chunk_reads.sql", "b4bb769d994f5b53b6eb1db09922e52a6c4f9c1600a06a7781fcd94098b772ab"),
        ("0006_add_variants_and_events.sql", "4e0accc10ea28ed6231359bbe7051926109628fba86743892c9d88e2ecd2adfd"),
        ("0007_add_local_time_and_quiet_hours.sql", "a0ec0d43f9b61e869a9893318a4b15853a9a9898b3d7a94b5a746d3f3fd25560"),
        ("0008_add_frequency_caps.sql", "ad1ac9326ca015b9c6695f6ac7d8d820f3e870c8bf1b7a35f8487f3f64889fc5"),
        ("0009_add_campaign_rate_slots.sql", "8b294ac9b67525cf5f9b96f3b7c4ba997b2aaf09c1d224eb293d3ea04e4a1da1"),
        ("0010_add_deferred_retries.sql", "57df172f3c95c4d24bd8c61fa31a89dc0ed874505d5378958ced49d5112b7078"),
        ("0011_create_console_users.sql", "e6856634e36ef3f74f05ba7f5521deccf7f588e2a0f006b5008ead05bf39d752"),
        ("0012_add_campaign_timelines.sql", "2311f357d1232aaa41cffec3734dae5af9d9e543fb8302865624df5fb58070dd"),
        ("0013_add_app_credentials_and_key_scopes.sql", "726ddb2d292ee9f56e22475e7b7b630ba7f484734ff2e43f7d4fb4f629c836b6"),
        ("0014_index_user_data.sql", "2a68277df028ad3f1635886c22845b2195a0677138a74e2739dbef7b8fb2e818"),
        ("0015_add_retention.sql", "ace8a3356f3116bc2fd5cc9d1e59c5079fdfacac9a9a685f7bddbb5c12dfbbae"),
        ("0016_add_template_owners.sql", "f4ed359b168fef9a8992133e3960c459e716db6b218db6c76d41406d3fc92b58"),
        ("0017_create_webhooks.sql", "ec5188c249953e5b04ca235f9191692e4839cfceecab2f75edadaf451428a599"),
        ("0018_hash_delivery_apns_ids.sql", "0f0d3f55e99969e6f8c758e8da2e9fccaa002563f7918037f2d994e8dca6cc4b"),
        ("0019_announce_app_changes.sql", "5a4be6fc69fbf6b4135e1ab056205d9e374434ce89df968e41133428ec747398"),
        ("0020_strip_every_app_webhook_copies.sql", "ea49aba9a2c0d7cf20925fa6f652a24696dbad2794f8759b98ec615f7023de22"),
        ("0021_index_user_devices_by_id.sql", "e47ff993c7316ae87af90c0d4f595e2f0a99656d32579f6e2e7abeeb49bd35a3"),
        ("0022_create_live_activities.sql", "60a7b60a24688205bde55d4106e248ded87c7abfcc06435eb055c57cf2ecb5e5"),
        ("0023_add_segment_support.sql", "d131654e7c2de1d1b19179d85919d61e46e78e88f24c1912ab45e03479377b06"),
        ("0024_create_campaign_series.sql", "4f5c353ae9d5a48eea8ab86b77160d9f21145d351cda7101923255ea2d369a9a"),
        ("0025_add_best_time_delivery.sql", "be01a7ec942a44e25a2d1db9e09b726cd1d2630bf41b6c2879f846518b67a897"),
        ("0026_index_segment_reads.sql", "b05115d024cbeb5b36593e65c7931ece3e781f373ecc2502c1bd3e74f9495047"),
        ("0027_add_custom_events.sql", "3101d6b10478670afd37a1d379409845bd87769d0203c8b88f8f932045f1e240"),
        ("0028_create_journeys.sql", "417237a6aaea30bae12e714cf598163b85b2f858e9745b390bc1cb470346f7ae"),
        ("0029_add_device_parts.sql", "9be89bcf1f2da15e9d615f321683f07adb376b44f70b912b8112cba54d560aa8"),
        ("0030_partition_the_ledger.sql", "f31f0ad86a3794f8a5aa176227fe70b6f30551fba22a91a6d844cd19cd065879"),
        ("0031_announce_app_changes_from_code.sql", "62f6da0ded142e806abb12733fb8ea371c9be8673a5eaf2bf2ffc3f77b658923"),
        ("0032_key_devices_by_part.sql", "80fd1dae96353c53a0b5f20ffccc74c74477ee04fb301984073a296b72dee52c"),
        ("0033_add_ledger_parts.sql", "381e90efa50f269ebb68c3e53e6fe746a37e48c74fb52eaf62fb37f68273d453"),
        ("0034_count_rate_slots_in_seconds.sql", "8b3cafa979c6db15630a3fadedb4a9234b0bb84067068eb51b5d15940e542369"),
        ("0035_lighten_the_ledger.sql", "352bf9038bccccdf23bd7ccc01fd9ad5f33821f6c044bca132e4435d6c36d1ef"),
        ("0036_encipher_apns_ids.sql", "f3aeb591dc5617ece809b77f913a3421bc41716889c7d1554592c7c69a0ae973"),
        ("0037_claim_webhooks_per_endpoint.sql", "77034269ae04026765f109fa602da316779c1371c0b661beba8138af4f5d9910"),
        ("0038_wake_webhook_dispatchers.sql", "d23a7d453c42aa4563d71e31d5a76e404e0c249345d686997f8c00308bb1549b"),
        ("0039_count_audiences_while_sending.sql", "cb8877379aabf08465da270806742afeadad0244e295884952e4e6af94938828"),
        ("0040_add_chunk_parts.sql", "58dfee207f219326f7b00cb01dd9d234a10e9b0aa816b94bafcba5054807f755"),
    ]

    @Test func shippedMigrationsAreUnchanged() throws {
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        let byName = Dictionary(uniqueKeysWithValues: migrations.map { ($0.name, $0.checksum) })
        for (name, checksum) in Self.shipped {
            #expect(byName[name] == checksum, "\(name) was edited after it shipped; add a new migration instead")
        }
    }
}
