import Synchronization

/// The waiting of an engine's loops: a loop with nothing to do pauses for its poll interval,
/// or less when new work is signalled (another process's NOTIFY, a campaign just started) or
/// the instance starts draining.
final class WakeUps: Sendable {
    /// Grows whenever there may be new work; a waiting loop wakes when it changes.
    private let generation = Mutex<UInt64>(0)

    func wake() {
        generation.withLock { $0 &+= 1 }
    }

    /// Where the signals stand: a loop reads it before it looks for work, and pauses `since`
    /// it, so a signal that came while it was looking is not lost.
    var current: UInt64 { generation.withLock { $0 } }

    /// Waits `interval`, or less once `stopping` turns true or ``wake()`` is called (or was,
    /// since `seen`).
    func pause(for interval: Duration, since seen: UInt64? = nil, stopping: () -> Bool) async {
        let step = Duration.milliseconds(50)
        var waited = Duration.zero
        let seen = seen ?? current
        while waited < interval, !stopping(), generation.withLock({ $0 }) == seen {
            try? await Task.sleep(for: min(step, interval - waited))
            waited += step
        }
    }
}
