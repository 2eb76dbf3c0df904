import Foundation

/// A share of a group (opened of sent, converted of assigned) with its 95 % Wilson score
/// interval: unlike the plain normal interval it stays inside [0, 1] and behaves for small
/// groups and rates near 0 or 1.
public struct Proportion: Sendable, Hashable {
    /// The two-sided 95 % quantile of the standard normal distribution.
    public static let z95 = 1.959963984540054

    public var count: Int
    public var total: Int

    public init(count: Int, total: Int) {
        self.count = count
        self.total = total
    }

    /// Nil for an empty group.
    public var rate: Double? { total > 0 ? Double(count) / Double(total) : nil }

    public var interval: ClosedRange<Double>? {
        guard total > 0 else { return nil }
        let n = Double(total)
        let p = Double(min(count, total)) / n
        let z2 = Self.z95 * Self.z95
        let center = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = Self.z95 / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return max(0, center - half)...min(1, center + half)
    }
}

/// Whether two groups' rates differ by more than chance: a two-sided, pooled two-proportion
/// z-test, with a 95 % interval for the difference (unpooled).
public struct ProportionComparison: Sendable, Hashable {
    /// `a`'s rate minus `b`'s.
    public var difference: Double
    public var interval: ClosedRange<Double>
    public var z: Double
    /// The probability of a difference at least this large if the rates were equal.
    public var pValue: Double

    /// Significant at the 5 % level.
    public var significant: Bool { pValue < 0.05 }

    /// Nil when either group is empty.
    public init?(_ a: Proportion, _ b: Proportion) {
        guard let pa = a.rate, let pb = b.rate else { return nil }
        let na = Double(a.total)
        let nb = Double(b.total)
        difference = pa - pb
        let pooled = Double(a.count + b.count) / (na + nb)
        let pooledError = (pooled * (1 - pooled) * (1 / na + 1 / nb)).squareRoot()
        if pooledError > 0 {
            z = difference / pooledError
            pValue = erfc(abs(z) / 2.0.squareRoot())
        } else {
            // Both rates 0 or both 1: no evidence of a difference.
            z = 0
            pValue = 1
        }
        let error = (pa * (1 - pa) / na + pb * (1 - pb) / nb).squareRoot()
        interval = (difference - Proportion.z95 * error)...(difference + Proportion.z95 * error)
    }
}
