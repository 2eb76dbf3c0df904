/// SplitMix64: a small, fast generator whose sequence is fixed by its seed, so that scripted
/// fault fractions repeat from run to run. Not for anything secret.
struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<1` with 53 bits of precision.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
