import Testing

@testable import HeraldAPI

/// The per-key rate limit's arithmetic, on a clock the test moves.
@Suite struct TokenBucketTests {
    @Test func aFullBucketAllowsItsBurstThenRefillsAtItsRate() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 10, burst: 3, now: start)
        #expect((0..<3).allSatisfy { _ in bucket.take(now: start) == nil })
        let wait = bucket.take(now: start)
        #expect(wait == .milliseconds(100))
        // A tenth of a second later one token is back, and only one.
        #expect(bucket.take(now: start + .milliseconds(100)) == nil)
        #expect(bucket.take(now: start + .milliseconds(100)) != nil)
        // A long pause refills up to the burst, never past it.
        let later = start + .seconds(60)
        #expect((0..<3).allSatisfy { _ in bucket.take(now: later) == nil })
        #expect(bucket.take(now: later) != nil)
    }

    @Test func theLimiterAnswersInWholeSecondsAndKeepsKeysApart() {
        let limiter = KeyRateLimiter(rate: 1, burst: 1)
        let now = ContinuousClock.now
        #expect(limiter.admit(keyID: 1, now: now) == nil)
        #expect(limiter.admit(keyID: 1, now: now) == 1)
        #expect(limiter.admit(keyID: 2, now: now) == nil)
        #expect(KeyRateLimiter(rate: 0, burst: 1).admit(keyID: 1, now: now) == nil)
    }

    @Test func aFullLimiterForgetsOnlyRefilledBucketsAndNeverResetsAnActiveKey() {
        let limiter = KeyRateLimiter(rate: 1, burst: 1)
        let start = ContinuousClock.now
        let full = KeyRateLimiter.maximumKeys
        // Key 0 is drawn down; the others fill the map and refill a second later.
        #expect(limiter.admit(keyID: 0, now: start + .milliseconds(900)) == nil)
        for key in 1..<Int64(full) { _ = limiter.admit(keyID: key, now: start) }
        #expect(limiter.rememberedKeys == full)
        // A new key at 1.5 s: the refilled buckets go, key 0 (still empty) stays limited.
        let later = start + .milliseconds(1_500)
        #expect(limiter.admit(keyID: Int64(full), now: later) == nil)
        #expect(limiter.rememberedKeys == 2)
        #expect(limiter.admit(keyID: 0, now: later) == 1)
    }
}
