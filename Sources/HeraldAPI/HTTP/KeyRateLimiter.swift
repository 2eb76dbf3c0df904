import Synchronization

/// A token bucket: `rate` tokens a second, at most `burst` saved up. A value driven by the
/// caller's clock, so its arithmetic is tested without waiting.
struct TokenBucket: Sendable, Equatable {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    private(set) var updated: ContinuousClock.Instant

    init(rate: Int, burst: Int, now: ContinuousClock.Instant) {
        self.rate = Double(max(rate, 1))
        self.burst = Double(max(burst, 1))
        tokens = self.burst
        updated = now
    }

    /// Takes one token; when none is left, how long until one is.
    mutating func take(now: ContinuousClock.Instant) -> Duration? {
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + max(seconds, 0) * rate)
        updated = now
        guard tokens >= 1 else { return .seconds((1 - tokens) / rate) }
        tokens -= 1
        return nil
    }

    /// Whether the bucket has filled up again by `now`: it then holds nothing a fresh one
    /// would not, so it can be forgotten.
    func isFull(at now: ContinuousClock.Instant) -> Bool {
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return tokens + max(seconds, 0) * rate >= burst
    }
}

/// Requests per API key, per instance: a key past its rate is answered 429 with `Retry-After`.
final class KeyRateLimiter: Sendable {
    let rate: Int
    private let burst: Int
    private let buckets = Mutex<[Int64: TokenBucket]>([:])
    /// Keys remembered at most. Past it the buckets that have filled up again are forgotten
    /// (losing nothing); if every one is still drawing down, the new key goes unremembered until
    /// room frees up, rather than every other key getting a full bucket again.
    static let maximumKeys = 100_000

    init(rate: Int, burst: Int) {
        self.rate = rate
        self.burst = burst
    }

    /// Nil when the key may go on; else the seconds to wait, rounded up.
    /// Keys remembered now.
    var rememberedKeys: Int { buckets.withLock { $0.count } }

    func admit(keyID: Int64, now: ContinuousClock.Instant = .now) -> Int? {
        guard rate > 0 else { return nil }
        let wait = buckets.withLock { buckets -> Duration? in
            if buckets.count >= Self.maximumKeys, buckets[keyID] == nil {
                buckets = buckets.filter { !$0.value.isFull(at: now) }
            }
            var bucket = buckets[keyID] ?? TokenBucket(rate: rate, burst: burst, now: now)
            let wait = bucket.take(now: now)
            if buckets.count < Self.maximumKeys || buckets[keyID] != nil { buckets[keyID] = bucket }
            return wait
        }
        guard let wait else { return nil }
        return max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
    }
}
