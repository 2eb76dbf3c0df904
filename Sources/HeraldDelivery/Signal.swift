import Synchronization

/// A one-way flag shared between tasks: the instance is draining, a lease was lost.
final class Signal: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() {
        state.withLock { $0 = true }
    }

    /// Runs `operation` until it ends or the flag is set, whichever comes first; nil when the
    /// flag won. A wait that crosses the network (a database that went away while the pool
    /// waits for a connection) must not hold up draining: the operation is then cancelled and
    /// left to end on its own (a child task would be awaited, however long the pool ignores
    /// the cancellation), and what it had claimed is taken again by another instance after
    /// its lease. The operation's answer comes back at once, not at the next check.
    func unlessSet<Value: Sendable>(
        checkEvery interval: Duration = .milliseconds(50), _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
            let race = Race(continuation)
            let work = Task {
                do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
            }
            Task {
                while !race.isOver {
                    if self.isSet {
                        work.cancel()
                        race.finish(.success(nil))
                        return
                    }
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// One continuation, resumed by whichever side finishes first.
    private final class Race<Value: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<Value?, any Error>?>

        init(_ continuation: CheckedContinuation<Value?, any Error>) {
            self.continuation = Mutex(continuation)
        }

        var isOver: Bool { continuation.withLock { $0 == nil } }

        func finish(_ outcome: Result<Value?, any Error>) {
            continuation.withLock { waiting in
                waiting?.resume(with: outcome)
                waiting = nil
            }
        }
    }
}
