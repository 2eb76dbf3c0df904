import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Keep-alive connections to webhook endpoints, by origin: an attempt takes an idle one or
/// opens one, and gives it back when its answer came whole. Idle connections are closed after
/// `idleLifetime` (before most servers close them: nginx keeps them 75 s, Node 5 s), and no
/// origin keeps more than `maxIdlePerOrigin`.
final class WebhookConnectionPool: Sendable {
    static let maxIdlePerOrigin = 64
    static let idleLifetime = TimeAmount.seconds(30)
    static let connectTimeout = TimeAmount.seconds(5)

    private struct Idle {
        var connection: WebhookConnection
        var since: NIODeadline
    }

    private struct State {
        var idle = [WebhookOrigin: [Idle]]()
        var lastSweep = NIODeadline.now()
    }

    private let state = Mutex(State())
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext?
    private let maxBodyBytes: Int

    init(group: any EventLoopGroup, tls: NIOSSLContext?, maxBodyBytes: Int) {
        self.group = group
        self.tls = tls
        self.maxBodyBytes = maxBodyBytes
    }

    /// Sends `request` to `origin` and waits for the answer, until `deadline`. A reused
    /// connection that closes or is reset before any answer (the endpoint closed it as idle as
    /// the request went out) is replaced by a new one once; receivers tell a repeat by its
    /// `webhook-id`.
    func exchange(
        _ request: WebhookRequest, to origin: WebhookOrigin, deadline: NIODeadline
    ) async
        -> WebhookExchange.Outcome
    {
        if let reused = take(origin) {
            let finished = await reused.exchange(request, deadline: deadline)
            // Closed or reset before any answer: most likely the endpoint closed it as idle.
            let stale = !finished.answerBegan && finished.outcome != .failed(.timedOut)
            if !stale || NIODeadline.now() >= deadline {
                settle(reused, finished)
                return finished.outcome
            }
        }
        if origin.secure && tls == nil {
            // Never post an https endpoint's message in the clear.
            return .failed(.failed("TLS is not available here: the system's trusted certificates could not be loaded"))
        }
        let connection: WebhookConnection
        do {
            connection = try await WebhookConnection.connect(
                to: origin, tls: origin.secure ? tls : nil, maxBodyBytes: maxBodyBytes, connectTimeout: Self.connectTimeout,
                deadline: deadline, group: group)
        } catch {
            return .failed(.failed(WebhookFailureText.describe(error)))
        }
        let finished = await connection.exchange(request, deadline: deadline)
        settle(connection, finished)
        return finished.outcome
    }

    /// The most recently used idle connection to `origin` that is still open. Once a second,
    /// closes the ones of every origin that idled too long or closed.
    private func take(_ origin: WebhookOrigin) -> WebhookConnection? {
        let now = NIODeadline.now()
        let (found, stale) = state.withLock { state -> (WebhookConnection?, [WebhookConnection]) in
            var stale = [WebhookConnection]()
            if now - state.lastSweep >= .seconds(1) {
                state.lastSweep = now
                for key in Array(state.idle.keys) {
                    let (keep, drop) = state.idle[key, default: []].partitioned {
                        $0.connection.isOpen && now - $0.since < Self.idleLifetime
                    }
                    stale += drop.map(\.connection)
                    state.idle[key] = keep.isEmpty ? nil : keep
                }
            }
            while let last = state.idle[origin]?.popLast() {
                if last.connection.isOpen { return (last.connection, stale) }
                stale.append(last.connection)
            }
            return (nil, stale)
        }
        for connection in stale { connection.close() }
        return found
    }

    private func settle(_ connection: WebhookConnection, _ finished: WebhookExchange.Finished) {
        guard finished.keepConnection, connection.isOpen else {
            connection.close()
            return
        }
        let kept = state.withLock { state -> Bool in
            guard state.idle[connection.origin, default: []].count < Self.maxIdlePerOrigin else { return false }
            state.idle[connection.origin, default: []].append(Idle(connection: connection, since: .now()))
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes every idle connection (those in use close when their exchange ends).
    func closeAll() {
        let all = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle.values.flatMap { $0.map(\.connection) }
        }
        for connection in all { connection.close() }
    }
}

extension Array {
    /// The elements that satisfy `belongs`, and the others, each in order.
    fileprivate func partitioned(_ belongs: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching = [Element]()
        var rest = [Element]()
        for element in self {
            if belongs(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
