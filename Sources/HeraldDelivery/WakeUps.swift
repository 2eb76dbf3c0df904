import Synchronization

/// The waiting of an engine's loops: a loop with nothing to do pauses for its poll interval,
/// or less when new work is signalled (another process's NOTIFY, a campaign just started) or
/// the instance starts draining. A signal ends the pause at once; draining is noticed within
/// 50 ms.
final class WakeUps: Sendable {
    private struct State {
        /// Grows whenever there may be new work; a waiting loop wakes when it changes.
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    func wake() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Where the signals stand: a loop reads it before it looks for work, and pauses `since`
    /// it, so a signal that came while it was looking is not lost.
    var current: UInt64 { state.withLock { $0.generation } }

    /// Waits `interval`, or less once `stopping` turns true, ``wake()`` is called (or was,
    /// since `seen`) or the task is cancelled.
    func pause(for interval: Duration, since seen: UInt64? = nil, stopping: () -> Bool) async {
        let seen = seen ?? current
        let clock = ContinuousClock()
        let deadline = clock.now + interval
        while !stopping(), !Task.isCancelled, current == seen, case let left = deadline - clock.now, left > .zero {
            await wakeOrSleep(since: seen, upTo: min(.milliseconds(50), left))
        }
    }

    /// Returns after `duration`, or at once when the generation moves past `seen`.
    private func wakeOrSleep(since seen: UInt64, upTo duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.nextWake(since: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns when the generation moves past `seen` (at once if it has), or when cancelled.
    private func nextWake(since seen: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
