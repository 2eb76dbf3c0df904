import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore

/// One shard of the sender pool: its own connections to one endpoint with one set of
/// credentials, and its own bound on notifications in flight.
final class APNSShard: Sendable {
    private struct State {
        var connections = [APNSConnection]()
        var connecting: Task<APNSConnection, any Error>?
        var consecutiveFailures = 0
    }

    let limiter: AsyncLimiter
    private let state = NIOLockedValueBox(State())
    let wanted: Int
    private let backoff: Backoff
    private let connect: @Sendable () async throws -> APNSConnection
    private let metrics: APNSClientMetrics
    private let logger: Logger

    init(
        connections: Int, maximumInFlight: Int, backoff: Backoff, metrics: APNSClientMetrics, logger: Logger,
        connect: @escaping @Sendable () async throws -> APNSConnection
    ) {
        wanted = max(connections, 1)
        limiter = AsyncLimiter(limit: maximumInFlight)
        self.backoff = backoff
        self.metrics = metrics
        self.logger = logger
        self.connect = connect
    }

    /// The connection with the most spare streams, opening one while fewer than wanted are
    /// usable. Connection attempts after failures wait with exponential backoff and jitter,
    /// so a broken endpoint never sees a tight open/close loop (docs/apns.md, "The connection").
    func connection() async throws -> APNSConnection {
        let (ready, pending, surplus) = state.withLockedValue {
            state -> (APNSConnection?, Task<APNSConnection, any Error>?, APNSConnection?) in
            // One status read per connection: each read takes that connection's lock.
            var best: (connection: APNSConnection, spare: Int)?
            var idlest: (connection: APNSConnection, inFlight: Int)?
            var usable = 0
            state.connections.removeAll { connection in
                let status = connection.status
                if status.phase == .closed { return true }
                if status.isUsable {
                    usable += 1
                    if best == nil || status.spareStreams > best!.spare { best = (connection, status.spareStreams) }
                    if idlest == nil || status.inFlight < idlest!.inFlight { idlest = (connection, status.inFlight) }
                }
                return false
            }
            // A connection opened while another was suspect (a request timed out on it) is one
            // too many once that one recovers: retire the idlest, so connections do not pile up.
            var surplus: APNSConnection?
            if usable > wanted, let idlest, let best, idlest.connection !== best.connection { surplus = idlest.connection }
            if let best, best.spare > 0 || usable >= wanted || state.connecting != nil {
                return (best.connection, nil, surplus)
            }
            if state.connecting == nil {
                state.connecting = makeConnectTask(failures: state.consecutiveFailures)
            }
            return (best?.connection, state.connecting, surplus)
        }
        surplus?.drain()
        if let ready { return ready }
        return try await pending!.value
    }

    private func makeConnectTask(failures: Int) -> Task<APNSConnection, any Error> {
        Task {
            if failures > 0 { try? await Task.sleep(for: backoff.delay(afterFailures: failures)) }
            do {
                let connection = try await connect()
                state.withLockedValue { state in
                    state.connections.append(connection)
                    state.connecting = nil
                    state.consecutiveFailures = 0
                }
                metrics.connections.increment()
                if failures > 0 { metrics.reconnects.increment() }
                let metrics = metrics
                connection.channel.closeFuture.whenComplete { _ in metrics.connections.decrement() }
                return connection
            } catch {
                state.withLockedValue { state in
                    state.connecting = nil
                    state.consecutiveFailures += 1
                }
                logger.warning("cannot connect to APNs", metadata: ["error": "\(error)"])
                throw error
            }
        }
    }

    func shutdown() async {
        let connections = state.withLockedValue { state in
            state.connecting?.cancel()
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in connections { await connection.close() }
    }
}

/// Exponential backoff with full jitter, capped.
struct Backoff: Sendable {
    var base: Duration
    var maximum: Duration

    func delay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 16)
        let ceiling = min(base * (1 << exponent), maximum)
        let nanoseconds = ceiling / .nanoseconds(1)
        return .nanoseconds(Int64.random(in: (Int64(nanoseconds) / 2)...max(Int64(nanoseconds), 1)))
    }
}
