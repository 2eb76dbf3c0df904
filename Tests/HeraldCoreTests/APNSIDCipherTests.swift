import APNSCore
import Foundation
import HeraldCore
import Testing

@Suite struct SipHashTests {
    /// The reference implementation's 64 vectors (SipHash paper, appendix A; the reference
    /// code's `vectors.h`): key 00 01 … 0f, message 00 01 … of lengths 0 to 63.
    static let vectors: [UInt64] = [
        0x726f_db47_dd0e_0e31, 0x74f8_39c5_93dc_67fd, 0x0d6c_8009_d9a9_4f5a, 0x8567_6696_d7fb_7e2d,
        0xcf27_94e0_2771_87b7, 0x1876_5564_cd99_a68d, 0xcbc9_466e_58fe_e3ce, 0xab02_00f5_8b01_d137,
        0x93f5_f579_9a93_2462, 0x9e00_82df_0ba9_e4b0, 0x7a5d_bbc5_94dd_b9f3, 0xf4b3_2f46_226b_ada7,
        0x751e_8fbc_860e_e5fb, 0x14ea_5627_c084_3d90, 0xf723_ca90_8e7a_f2ee, 0xa129_ca61_49be_45e5,
        0x3f2a_cc7f_57c2_9bdb, 0x699a_e9f5_2cbe_4794, 0x4bc1_b3f0_968d_d39c, 0xbb6d_c91d_a779_61bd,
        0xbed6_5cf2_1aa2_ee98, 0xd0f2_cbb0_2e3b_67c7, 0x9353_6795_e3a3_3e88, 0xa80c_038c_cd5c_cec8,
        0xb8ad_50c6_f649_af94, 0xbce1_92de_8a85_b8ea, 0x17d8_35b8_5bbb_15f3, 0x2f2e_6163_076b_cfad,
        0xde4d_aaac_a71d_c9a5, 0xa6a2_5066_8795_6571, 0xad87_a353_5c49_ef28, 0x32d8_92fa_d841_c342,
        0x7127_512f_72f2_7cce, 0xa7f3_2346_f959_78e3, 0x12e0_b01a_bb05_1238, 0x15e0_34d4_0fa1_97ae,
        0x314d_ffbe_0815_a3b4, 0x0279_90f0_2962_3981, 0xcadc_d4e5_9ef4_0c4d, 0x9abf_d876_6a33_735c,
        0x0e3e_a96b_5304_a7d0, 0xad0c_42d6_fc58_5992, 0x1873_06c8_9bc2_15a9, 0xd4a6_0abc_f379_2b95,
        0xf935_451d_e4f2_1df2, 0xa953_8f04_1975_5787, 0xdb9a_cddf_f56c_a510, 0xd06c_98cd_5c09_75eb,
        0xe612_a3cb_9ecb_a951, 0xc766_e62c_fcad_af96, 0xee64_435a_9752_fe72, 0xa192_d576_b245_165a,
        0x0a87_87bf_8ecb_74b2, 0x81b3_e73d_20b4_9b6f, 0x7fa8_220b_a3b2_ecea, 0x2457_31c1_3ca4_2499,
        0xb78d_bfaf_3a8d_83bd, 0xea1a_d565_322a_1a0b, 0x60e6_1c23_a379_5013, 0x6606_d7e4_4628_2b93,
        0x6ca4_ecb1_5c5f_91e1, 0x9f62_6da1_5c96_25f3, 0xe51b_3860_8ef2_5f57, 0x958a_324c_eb06_4572,
    ]

    static let reference = SipHash24(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

    @Test func matchesTheReferenceVectors() {
        for length in 0..<64 {
            #expect(Self.reference.hash((0..<length).map { UInt8($0) }) == Self.vectors[length], "length \(length)")
        }
    }

    @Test func theEightByteShortcutMatchesTheGeneralOne() {
        #expect(Self.reference.hash(0x0706_0504_0302_0100) == Self.vectors[8])
        for value: UInt64 in [0, 1, 0xdead_beef, .max, 1 << 63] {
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            #expect(Self.reference.hash(value) == Self.reference.hash(bytes))
        }
    }
}

@Suite struct APNSIDCipherTests {
    static let key: [UInt8] = (0..<16).map { UInt8($0 * 7 + 3) }
    static let cipher = APNSIDCipher(key: key)!

    @Test func aKeyIsSixteenBytes() {
        #expect(APNSIDCipher(key: []) == nil)
        #expect(APNSIDCipher(key: Array(repeating: 1, count: 15)) == nil)
        #expect(APNSIDCipher(key: Array(repeating: 1, count: 17)) == nil)
        #expect(APNSIDCipher.newKey().count == 16)
        #expect(APNSIDCipher.newKey() != APNSIDCipher.newKey())
    }

    @Test func neverShowsItsKey() {
        let text = "\(Self.cipher) \(String(reflecting: Self.cipher))"
        #expect(!text.contains("SipHash"))
        #expect(!text.contains(String(Self.key[1])))
        #expect(Self.cipher.description == "APNSIDCipher(key redacted)")
    }

    static let pairs: [(Int64, Int64)] = [
        (0, 0), (1, 1), (1_000_000, 42), (7_000_123, 999_999_999), (APNSIDCipher.maxCampaignID, .max),
        (APNSIDCipher.maxCampaignID, 0), (0, .max), (123_456_789_012, 1 << 61), (5, (1 << 61) - 1),
    ]

    @Test(arguments: pairs)
    func decodesWhatItMade(campaign: Int64, device: Int64) throws {
        let id = try #require(Self.cipher.apnsID(campaignID: campaign, deviceID: device))
        let decoded = try #require(Self.cipher.decode(id))
        #expect(decoded.campaignID == campaign && decoded.deviceID == device)
        #expect(APNSIDCipher.isEnciphered(id))
    }

    @Test func roundTripsRandomPairs() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let campaign = Int64.random(in: 0...APNSIDCipher.maxCampaignID, using: &generator)
            let device = Int64.random(in: 0...Int64.max, using: &generator)
            let id = try #require(Self.cipher.apnsID(campaignID: campaign, deviceID: device))
            let decoded = try #require(Self.cipher.decode(id))
            #expect(decoded.campaignID == campaign && decoded.deviceID == device)
        }
    }

    @Test func isAVersion8UUIDInItsCanonicalForm() throws {
        let id = try #require(Self.cipher.apnsID(campaignID: 3, deviceID: 4))
        let text = id.canonicalString
        #expect(text.count == 36 && text == text.lowercased())
        #expect(Array(text)[14] == "8")
        #expect("89ab".contains(Array(text)[19]))
    }

    @Test func refusesWhatItCannotHold() {
        #expect(Self.cipher.apnsID(campaignID: -1, deviceID: 1) == nil)
        #expect(Self.cipher.apnsID(campaignID: 1, deviceID: -1) == nil)
        #expect(Self.cipher.apnsID(campaignID: APNSIDCipher.maxCampaignID + 1, deviceID: 1) == nil)
        #expect(Self.cipher.apnsID(campaignID: .max, deviceID: 1) == nil)
    }

    @Test func otherUUIDsAreNotItsOwn() throws {
        let version5 = UUID.version5(namespace: .namespaceURL, name: "42")
        #expect(Self.cipher.decode(version5) == nil)
        #expect(!APNSIDCipher.isEnciphered(version5))
        let version4 = try #require(UUID(uuidString: "f47ac10b-58cc-4372-a567-0e02b2c3d479"))
        #expect(Self.cipher.decode(version4) == nil)
        // Version 8 but the wrong variant (0b11).
        let wrongVariant = try #require(UUID(uuidString: "f47ac10b-58cc-8372-e567-0e02b2c3d479"))
        #expect(Self.cipher.decode(wrongVariant) == nil)
    }

    @Test func neighboursLookUnrelated() throws {
        // Consecutive devices of one campaign: about half of the 122 free bits differ.
        var differing = [Int]()
        for device in Int64(1)...200 {
            let a = try #require(Self.cipher.apnsID(campaignID: 9, deviceID: device))
            let b = try #require(Self.cipher.apnsID(campaignID: 9, deviceID: device + 1))
            differing.append(Self.bitsDiffering(a, b))
        }
        let mean = Double(differing.reduce(0, +)) / Double(differing.count)
        #expect(mean > 52 && mean < 70, "mean \(mean)")
        #expect(differing.min()! > 30)
    }

    @Test func anotherKeyMakesOtherIDs() throws {
        let other = try #require(APNSIDCipher(key: Array(repeating: 9, count: 16)))
        let mine = try #require(Self.cipher.apnsID(campaignID: 77, deviceID: 88))
        let theirs = try #require(other.apnsID(campaignID: 77, deviceID: 88))
        #expect(mine != theirs)
        let misread = try #require(other.decode(mine))
        #expect(misread.campaignID != 77 || misread.deviceID != 88)
    }

    @Test func variantAssignmentStaysEven() throws {
        // The A/B split reads the apns-id's first 48 bits; over enciphered ids a 50/50 split
        // stays near even.
        let split = AudienceSplit(holdoutBasisPoints: 1000, weights: [1, 1])
        var counts = [String: Int]()
        for device in Int64(1)...20_000 {
            let id = try #require(Self.cipher.apnsID(campaignID: 12, deviceID: device))
            counts["\(split.assignment(apnsID: id))", default: 0] += 1
        }
        #expect((1_700...2_300).contains(counts["heldOut"] ?? 0), "\(counts)")
        #expect((8_300...9_700).contains(counts["variant(0)"] ?? 0), "\(counts)")
        #expect((8_300...9_700).contains(counts["variant(1)"] ?? 0), "\(counts)")
    }

    static func bitsDiffering(_ a: UUID, _ b: UUID) -> Int {
        let x = withUnsafeBytes(of: a.uuid) { Array($0) }
        let y = withUnsafeBytes(of: b.uuid) { Array($0) }
        return zip(x, y).map { ($0 ^ $1).nonzeroBitCount }.reduce(0, +)
    }
}
