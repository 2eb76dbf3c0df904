import DequeModule
import NIOConcurrencyHelpers

/// Bounds work in flight with async backpressure: `acquire` suspends while the bound is
/// reached, so a caller feeding millions of notifications holds at most `limit` at a time.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state: NIOLockedValueBox<State>

    init(limit: Int) {
        state = NIOLockedValueBox(State(available: max(limit, 1)))
    }

    func acquire() async {
        // Fast path: no continuation while there is room.
        let granted = state.withLockedValue { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if granted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLockedValue { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.popFirst() { return waiter }
            state.available += 1
            return nil
        }
        next?.resume()
    }
}
