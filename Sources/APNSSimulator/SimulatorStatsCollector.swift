import APNSCore
import Synchronization

/// The simulator's counters, shared by every connection and event loop.
final class SimulatorStatsCollector: Sendable {
    private let stats = Mutex(SimulatorStats())

    /// A connection opened; returns its number (1-based, in opening order).
    func connectionOpened() -> Int {
        stats.withLock { stats in
            stats.connectionsOpened += 1
            stats.connectionsOpen += 1
            stats.requestsPerConnection.append(0)
            return stats.connectionsOpened
        }
    }

    func connectionClosed() {
        stats.withLock { $0.connectionsOpen -= 1 }
    }

    /// A request's headers arrived on connection `connection`; `pathOrAuthorizationIndexed`
    /// says whether they broke the HPACK rule.
    func requestReceived(connection: Int, pathOrAuthorizationIndexed: Bool) {
        stats.withLock { stats in
            stats.requestsReceived += 1
            stats.requestsPerConnection[connection - 1] += 1
            if pathOrAuthorizationIndexed { stats.pathOrAuthorizationIndexed += 1 }
        }
    }

    func answered(status: Int, reason: APNSReason?) {
        stats.withLock { stats in
            stats.answeredByStatus[status, default: 0] += 1
            if status == 200 { stats.accepted += 1 }
            if let reason { stats.answeredByReason[reason, default: 0] += 1 }
        }
    }

    func leftUnanswered() {
        stats.withLock { $0.unanswered += 1 }
    }

    func stalled(apnsID: String?) {
        stats.withLock { stats in
            stats.stalled += 1
            if let apnsID { stats.stalledAPNSIDs.append(apnsID.lowercased()) }
        }
    }

    func goAwaySent() {
        stats.withLock { $0.goAwaysSent += 1 }
    }

    func snapshot() -> SimulatorStats {
        stats.withLock { $0 }
    }
}
