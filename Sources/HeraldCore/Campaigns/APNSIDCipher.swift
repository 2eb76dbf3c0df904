import Foundation

/// The apns-ids of a campaign's notifications: the campaign's ID and the device's ID,
/// enciphered under the app's 128-bit key into a version 8 UUID (RFC 9562 §5.8). An apns-id
/// therefore names its own campaign and device: an `opened` event is attributed by deciphering
/// it and reading the ledger row by its key, with no index on a random UUID (docs/campaigns.md,
/// "Apns-ids"). Without the key the ids say nothing and cannot be made up: neighbouring devices
/// get unrelated ids.
///
/// The cipher is a four-round Feistel network on 122 bits, two halves of 61, with SipHash-2-4
/// (keyed by the app's key, the round's number in the input) as its round function; four
/// rounds of a pseudorandom function make a strong pseudorandom permutation (Luby and Rackoff).
/// The same campaign and device always give the same apns-id, so a resend after a crash
/// carries the first one (docs/rules.md rule 2).
public struct APNSIDCipher: Sendable, Equatable, CustomStringConvertible {
    /// The largest campaign ID an apns-id can hold (59 bits); a campaign beyond it keeps the
    /// older UUIDv5 ids.
    public static let maxCampaignID: Int64 = (1 << 59) - 1

    let function: SipHash24

    /// A cipher under a 16-byte key; nil for any other length.
    public init?(key: [UInt8]) {
        guard key.count == 16 else { return nil }
        var k0: UInt64 = 0
        var k1: UInt64 = 0
        for index in 0..<8 {
            k0 |= UInt64(key[index]) << (8 * UInt64(index))
            k1 |= UInt64(key[8 + index]) << (8 * UInt64(index))
        }
        function = SipHash24(k0: k0, k1: k1)
    }

    /// A new random key's 16 bytes (the system's cryptographic generator).
    public static func newKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Never the key.
    public var description: String { "APNSIDCipher(key redacted)" }

    private static let half: UInt64 = (1 << 61) - 1

    @inline(__always)
    private func round(_ number: UInt64, _ value: UInt64) -> UInt64 {
        function.hash(value | number << 61) & Self.half
    }

    /// The apns-id of `deviceID` in `campaignID`; nil when either is out of range (a negative
    /// ID, a campaign ID over ``maxCampaignID``).
    public func apnsID(campaignID: Int64, deviceID: Int64) -> UUID? {
        guard campaignID >= 0, campaignID <= Self.maxCampaignID, deviceID >= 0 else { return nil }
        let (campaign, device) = (UInt64(campaignID), UInt64(deviceID))
        // 122 bits: the campaign's 59, then the device's 63; halves of 61.
        var left = campaign << 2 | device >> 61
        var right = device & Self.half
        for number in UInt64(0)..<4 {
            (left, right) = (right, left ^ round(number, right))
        }
        // 48 bits, the version (8), 12 bits; the variant (0b10), 62 bits.
        let top = left >> 1
        let upper = (top >> 12) << 16 | 0x8 << 12 | (top & 0xfff)
        let lower = 0b10 << 62 | (left & 1) << 61 | right
        return UUID(upper: upper, lower: lower)
    }

    /// The campaign and device an apns-id of this cipher names; nil when it is not a version 8
    /// UUID (an older UUIDv5 apns-id, a journey's, a made-up one). A version 8 UUID that this
    /// key did not make deciphers to IDs that no ledger row has.
    public func decode(_ apnsID: UUID) -> (campaignID: Int64, deviceID: Int64)? {
        let (upper, lower) = apnsID.words
        guard (upper >> 12) & 0xf == 0x8, lower >> 62 == 0b10 else { return nil }
        let top = (upper >> 16) << 12 | (upper & 0xfff)
        var left = top << 1 | (lower >> 61) & 1
        var right = lower & Self.half
        for number in (UInt64(0)..<4).reversed() {
            (left, right) = (right ^ round(number, left), left)
        }
        return (Int64(left >> 2), Int64((left & 3) << 61 | right))
    }

    /// Whether an apns-id is of the enciphered kind (version 8), whatever its key.
    public static func isEnciphered(_ apnsID: UUID) -> Bool {
        let (upper, lower) = apnsID.words
        return (upper >> 12) & 0xf == 0x8 && lower >> 62 == 0b10
    }
}

extension UUID {
    /// A UUID from its 128 bits, most significant first.
    init(upper: UInt64, lower: UInt64) {
        let u = upper.bigEndian
        let l = lower.bigEndian
        self = withUnsafeBytes(of: (u, l)) { raw in
            UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                    raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
                ))
        }
    }

    /// The 128 bits, most significant first.
    var words: (upper: UInt64, lower: UInt64) {
        withUnsafeBytes(of: uuid) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
