import Synchronization

/// A one-way flag shared between tasks: the instance is draining, a lease was lost.
final class Signal: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() {
        state.withLock { $0 = true }
    }
}
