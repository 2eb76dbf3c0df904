import Synchronization

/// A token bucket: `rate` notifications a second on average, bursts up to one second's worth.
/// A caller reserves what it is about to send and sleeps for the returned wait, so one lock
/// is held for a moment only and waiting callers queue up fairly in time.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let rate: Int
    private let bucket: Mutex<Bucket>

    init(rate: Int) {
        self.rate = max(rate, 1)
        self.bucket = Mutex(Bucket(tokens: Double(max(rate, 1)), updated: .now))
    }

    /// Takes `count` tokens, going into debt if there are not enough; returns how long to wait
    /// before sending (zero when they were there).
    func reserve(_ count: Int, now: ContinuousClock.Instant = .now) -> Duration {
        let rate = Double(self.rate)
        return bucket.withLock { bucket in
            let elapsed = bucket.updated.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(rate, bucket.tokens + max(seconds, 0) * rate)
            bucket.updated = now
            bucket.tokens -= Double(count)
            return bucket.tokens >= 0 ? .zero : .seconds(-bucket.tokens / rate)
        }
    }

    func acquire(_ count: Int) async throws {
        let wait = reserve(count)
        if wait > .zero { try await Task.sleep(for: wait) }
    }
}
