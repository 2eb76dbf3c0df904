/// SipHash-2-4, the keyed 64-bit pseudorandom function of Aumasson and Bernstein ("SipHash: a
/// fast short-input PRF", 2012), with a 128-bit key. Herald uses it as the round function of
/// the cipher that makes campaign apns-ids (``APNSIDCipher``): short inputs, a few nanoseconds
/// each, no allocation.
public struct SipHash24: Sendable, Equatable {
    let k0: UInt64
    let k1: UInt64

    /// The key's two halves, little-endian, as the reference implementation reads its 16 bytes.
    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The 64-bit tag of one 8-byte message, `message` read little-endian (the common case,
    /// unrolled: one compression block and the length block).
    public func hash(_ message: UInt64) -> UInt64 {
        var state = State(k0: k0, k1: k1)
        state.compress(message)
        state.compress(UInt64(8) << 56)
        return state.finalize()
    }

    /// The 64-bit tag of `bytes`.
    public func hash(_ bytes: [UInt8]) -> UInt64 {
        var state = State(k0: k0, k1: k1)
        let whole = bytes.count / 8 * 8
        var index = 0
        while index < whole {
            var word: UInt64 = 0
            for offset in 0..<8 { word |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
            state.compress(word)
            index += 8
        }
        var last = UInt64(truncatingIfNeeded: bytes.count) << 56
        for offset in 0..<(bytes.count - whole) { last |= UInt64(bytes[whole + offset]) << (8 * UInt64(offset)) }
        state.compress(last)
        return state.finalize()
    }

    private struct State {
        var v0: UInt64
        var v1: UInt64
        var v2: UInt64
        var v3: UInt64

        init(k0: UInt64, k1: UInt64) {
            v0 = k0 ^ 0x736f_6d65_7073_6575
            v1 = k1 ^ 0x646f_7261_6e64_6f6d
            v2 = k0 ^ 0x6c79_6765_6e65_7261
            v3 = k1 ^ 0x7465_6462_7974_6573
        }

        mutating func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13) ^ v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16) ^ v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21) ^ v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17) ^ v2
            v2 = v2.rotatedLeft(32)
        }

        /// Two rounds per message word ("2" of 2-4).
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }

        /// Four rounds to finish ("4" of 2-4).
        mutating func finalize() -> UInt64 {
            v2 ^= 0xff
            round()
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
