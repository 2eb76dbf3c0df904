import DequeModule
import NIOConcurrencyHelpers

/// Bounds work in flight with async backpressure: `acquire` suspends while the bound is
/// reached, so a caller feeding millions of notifications holds at most `limit` at a time.
/// Waiters are served in order, so a large request is never starved by small ones.
final class AsyncLimiter: Sendable {
    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var available: Int
        var waiters = Deque<Waiter>()
    }

    let limit: Int
    private let state: NIOLockedValueBox<State>

    init(limit: Int) {
        self.limit = max(limit, 1)
        state = NIOLockedValueBox(State(available: self.limit))
    }

    /// Takes `count` permits (at most `limit`), waiting until they are free.
    func acquire(_ count: Int = 1) async {
        let count = min(max(count, 1), limit)
        // Fast path: no continuation while there is room.
        let granted = state.withLockedValue { state -> Bool in
            guard state.waiters.isEmpty, state.available >= count else { return false }
            state.available -= count
            return true
        }
        if granted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLockedValue { state -> Bool in
                if state.waiters.isEmpty, state.available >= count {
                    state.available -= count
                    return true
                }
                state.waiters.append(Waiter(count: count, continuation: continuation))
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Returns permits taken by `acquire` (pass the same count).
    func release(_ count: Int = 1) {
        let count = min(max(count, 1), limit)
        let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.available += count
            var ready = [CheckedContinuation<Void, Never>]()
            while let first = state.waiters.first, first.count <= state.available {
                state.available -= first.count
                ready.append(state.waiters.removeFirst().continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
