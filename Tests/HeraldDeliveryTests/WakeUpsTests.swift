import Testing

@testable import HeraldDelivery

/// An engine's loop reads where the signals stand before it looks for work, and pauses since
/// then: a signal that came while it looked (a NOTIFY during a slow poll) is not lost.
@Suite struct WakeUpsTests {
    @Test func aWakeWhileLookingEndsThePauseAtOnce() async {
        let wakeUps = WakeUps()
        let seen = wakeUps.current
        wakeUps.wake()  // while the loop was looking for work
        let start = ContinuousClock.now
        await wakeUps.pause(for: .seconds(60), since: seen) { false }
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func withoutAWakeThePauseLastsItsInterval() async {
        let wakeUps = WakeUps()
        let start = ContinuousClock.now
        await wakeUps.pause(for: .milliseconds(200), since: wakeUps.current) { false }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }

    @Test func aWakeDuringThePauseEndsIt() async {
        let wakeUps = WakeUps()
        let seen = wakeUps.current
        async let paused: Void = wakeUps.pause(for: .seconds(60), since: seen) { false }
        try? await Task.sleep(for: .milliseconds(100))
        wakeUps.wake()
        let start = ContinuousClock.now
        await paused
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    /// One wake ends every loop's pause, each as soon as it comes (not at a polling step).
    @Test func oneWakeEndsEveryPause() async {
        let wakeUps = WakeUps()
        let seen = wakeUps.current
        let start = ContinuousClock.now
        await withTaskGroup(of: Duration.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await wakeUps.pause(for: .seconds(60), since: seen) { false }
                    return ContinuousClock.now - start
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
            wakeUps.wake()
            var ended = 0
            for await elapsed in group {
                #expect(elapsed < .seconds(30))
                ended += 1
            }
            #expect(ended == 8)
        }
    }

    @Test func aCancelledPauseReturns() async {
        let wakeUps = WakeUps()
        let paused = Task { await wakeUps.pause(for: .seconds(60), since: wakeUps.current) { false } }
        try? await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        paused.cancel()
        await paused.value
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
