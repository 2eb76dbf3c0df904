import Foundation
import HeraldCore
import Logging
import Metrics

/// Posts one webhook message and reports what came back. Implementations give up after
/// `timeout` (connecting, sending and reading the answer together).
public protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(String, String)], body: String, timeout: Duration) async -> WebhookAttemptResult
}

/// What one attempt got: the endpoint's status, or why there was none (refused, timed out…).
public enum WebhookAttemptResult: Sendable, Equatable {
    case status(Int)
    case failed(String)
}

/// Delivers the webhook outbox (docs/webhooks.md): claims due messages, posts each signed,
/// records the answer, and schedules a retry for anything but a 2xx. It runs beside the
/// engine and shares nothing with it but the database, so a slow or dead endpoint never holds
/// up sending; at most `perEndpoint` messages of one endpoint are in flight here at once, so
/// it does not hold up other endpoints either.
public struct WebhookDispatcher: Sendable {
    public var store: any WebhookStore
    public var transport: any WebhookTransport
    public var policy: WebhookRetryPolicy
    public var concurrency: Int
    public var perEndpoint: Int
    public var timeout: Duration
    public var pollInterval: Duration
    public var backlogInterval: Duration
    public var logger: Logger
    private let draining = Signal()
    private let wakeUps = WakeUps()

    public init(
        store: any WebhookStore, transport: any WebhookTransport, policy: WebhookRetryPolicy = .standard,
        concurrency: Int = 16, perEndpoint: Int = 4, timeout: Duration = .seconds(10),
        pollInterval: Duration = .seconds(1), backlogInterval: Duration = .seconds(15), logger: Logger
    ) {
        self.store = store
        self.transport = transport
        self.policy = policy
        self.concurrency = max(1, concurrency)
        self.perEndpoint = max(1, min(perEndpoint, concurrency))
        self.timeout = timeout
        self.pollInterval = pollInterval
        self.backlogInterval = backlogInterval
        self.logger = logger
    }

    static let delivered = Counter(label: "herald_webhook_attempts_total", dimensions: [("outcome", "delivered")])
    static let retrying = Counter(label: "herald_webhook_attempts_total", dimensions: [("outcome", "retrying")])
    static let failed = Counter(label: "herald_webhook_attempts_total", dimensions: [("outcome", "failed")])
    static let pending = Gauge(label: "herald_webhook_pending_messages")
    static let oldestAge = Gauge(label: "herald_webhook_oldest_pending_age_seconds")

    /// Stops taking messages; `run()` returns once the attempts under way are recorded.
    public func drain() {
        draining.set()
    }

    private var stopping: Bool { draining.isSet || Task.isCancelled }

    /// How many messages of an endpoint are claimed ahead per slot it may use: claims are
    /// this many times larger (and this many times fewer) than the slots they fill.
    static let prefetch = 4

    /// How long a claimed message stays this instance's: long enough to be attempted even if
    /// every attempt of its endpoint ahead of it in the queue runs to its deadline (a claim may
    /// hold up to twice `prefetch` rounds of them), plus a margin. Should the instance die, its
    /// messages are due again after this.
    var lease: Duration { timeout * (2 * Self.prefetch) + .seconds(30) }

    /// Runs until `drain()` (attempts under way finish, each within `timeout`, and are
    /// recorded; messages claimed but not started are given back) or until the task is
    /// cancelled (they are abandoned, and tried again after their lease).
    ///
    /// Claims and records run beside the attempts, never in their way: while a claim is out,
    /// attempts that end free their slots for what is queued (BENCHMARKS.md, "Webhook
    /// delivery: claims per endpoint, a client of Herald's own, wake-ups").
    public func run() async {
        let backlog = Task { await reportBacklog() }
        let listening = Task { await listen() }
        defer {
            backlog.cancel()
            listening.cancel()
        }
        await withTaskGroup(of: Event.self) { group in
            var run = RunState(concurrency: concurrency, perEndpoint: perEndpoint, prefetch: Self.prefetch)
            var ticking = false
            // Deliveries are recorded together: with each claim (a claim's worth of them), when
            // nothing else is in flight, at each tick, and before returning. Every statement
            // costs PostgreSQL more than the rows it updates.
            var delivered = [WebhookDelivered]()
            // Where the wake-ups stood when the last claim went out (one since then: messages
            // were queued that it may not have seen), and when the last tick was handled.
            var (claimSeen, tickSeen) = (wakeUps.current, wakeUps.current)
            while !stopping {
                if run.wantsClaim {
                    claimSeen = wakeUps.current
                    tickSeen = claimSeen
                    let (limit, skipping, recording) = (run.claimLimit, run.fullEndpoints, delivered)
                    delivered.removeAll(keepingCapacity: true)
                    run.claimStarted(skipping: skipping)
                    group.addTask {
                        await record(recording)
                        return .claimed(await claim(limit: limit, perEndpoint: perEndpoint * Self.prefetch, skipping: skipping), asked: limit)
                    }
                }
                while let delivery = run.nextToStart() {
                    group.addTask { .finished(await attempt(delivery)) }
                }
                if !ticking {
                    ticking = true
                    group.addTask { [tickSeen] in
                        // The poll interval, or less when messages are queued (NOTIFY).
                        await wakeUps.pause(for: pollInterval, since: tickSeen) { draining.isSet }
                        return .ticked
                    }
                }
                guard let next = await group.next() else { break }
                switch next {
                case .finished(let finished):
                    run.finished(endpointID: finished.endpointID)
                    if let done = finished.delivered { delivered.append(done) }
                    if let dueAt = finished.holdUntil {
                        // The endpoint failed: what waits for it here goes back, unspent, to be
                        // tried after the retry (one message probes it meanwhile).
                        await release(run.hold(endpointID: finished.endpointID, until: dueAt), dueAt: dueAt)
                    }
                case .claimed(let claimed, let asked):
                    // Messages of an endpoint that failed while the claim was out go back too.
                    for (dueAt, ids) in run.claimed(claimed, asked: asked, now: Date()) {
                        await release(ids, dueAt: dueAt)
                    }
                    // Messages queued while it was out: a short claim does not mean none are due.
                    if wakeUps.current != claimSeen { run.ticked(now: Date()) }
                case .ticked:
                    ticking = false
                    tickSeen = wakeUps.current
                    run.ticked(now: Date())
                case .recorded:
                    break
                }
                if !delivered.isEmpty && (next.isTick || !run.isClaiming && (run.inFlight == 0 || delivered.count >= concurrency * Self.prefetch)) {
                    let recording = delivered
                    delivered.removeAll(keepingCapacity: true)
                    group.addTask {
                        await record(recording)
                        return .recorded
                    }
                }
            }
            // Stopping: what was claimed but not started is due again at once, for any instance,
            // and so is what a claim still out brings back.
            await release(run.takeAllQueued(), dueAt: Date())
            for await next in group {
                switch next {
                case .finished(let finished): if let done = finished.delivered { delivered.append(done) }
                case .claimed(let claimed, _): await release(claimed.map(\.id), dueAt: Date())
                case .ticked, .recorded: break
                }
            }
            await record(delivered)
        }
    }

    /// What the run loop waits for.
    enum Event: Sendable {
        case finished(Finished)
        case claimed([WebhookDelivery], asked: Int)
        case ticked
        case recorded

        var isTick: Bool {
            if case .ticked = self { return true }
            return false
        }
    }

    /// An attempt's end, for the run loop.
    struct Finished: Sendable {
        var endpointID: Int64
        /// Set when the endpoint answered 2xx: recorded with the next batch.
        var delivered: WebhookDelivered?
        /// Set when the attempt failed and will be retried then: the endpoint's queued messages wait too.
        var holdUntil: Date?
    }

    private func release(_ ids: [Int64], dueAt: Date) async {
        guard !ids.isEmpty else { return }
        do {
            try await store.release(ids, dueAt: dueAt)
        } catch {
            // Not given back: due again after their lease, with an attempt spent.
            logger.warning("webhooks: cannot give back \(ids.count) messages", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    private func record(_ delivered: [WebhookDelivered]) async {
        guard !delivered.isEmpty else { return }
        do {
            try await store.recordDelivered(delivered)
        } catch {
            // Delivered but not recorded: sent again after their lease (at least once).
            logger.warning(
                "webhooks: cannot record \(delivered.count) deliveries", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    private func claim(limit: Int, perEndpoint: Int, skipping: [Int64]) async -> [WebhookDelivery] {
        do {
            // Draining does not wait for a claim the database does not answer.
            let (store, lease) = (self.store, self.lease)
            return try await draining.unlessSet {
                try await store.claim(limit: limit, perEndpoint: perEndpoint, skipping: skipping, lease: lease)
            } ?? []
        } catch {
            if !Task.isCancelled {
                logger.warning("webhooks: cannot claim messages; trying again", metadata: ["error.type": "\(type(of: error))"])
            }
            return []
        }
    }

    /// One attempt; a failure is recorded here, a delivery by the run loop. Nothing in a
    /// message's URL, secret or body is logged.
    func attempt(_ delivery: WebhookDelivery) async -> Finished {
        let now = Date()
        let result: WebhookAttemptResult
        if policy.hasExpired(occurredAt: delivery.occurredAt, now: now) {
            result = .failed("expired: the event is older than the retry window")
        } else {
            let timestamp = Int(now.timeIntervalSince1970)
            let messageID = delivery.messageID.uuidString.lowercased()
            guard
                let signature = WebhookSignature.sign(
                    messageID: messageID, timestamp: timestamp, body: delivery.body, secret: delivery.secret)
            else {
                await record(delivery, status: nil, error: "the endpoint's stored secret is unusable", retryAt: nil)
                return Finished(endpointID: delivery.endpointID)
            }
            result = await transport.post(
                url: delivery.url,
                headers: [
                    ("content-type", "application/json"), ("user-agent", "Herald-Webhooks/1"),
                    ("webhook-id", messageID), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature),
                ],
                body: delivery.body, timeout: timeout)
        }
        switch result {
        case .status(let status) where (200..<300).contains(status):
            Self.delivered.increment()
            return Finished(endpointID: delivery.endpointID, delivered: WebhookDelivered(id: delivery.id, status: status))
        case .status(let status):
            let retry = retryAt(delivery)
            await record(delivery, status: status, error: "answered \(status)", retryAt: retry)
            return Finished(endpointID: delivery.endpointID, holdUntil: retry)
        case .failed(let reason):
            // An expired message says nothing about the endpoint.
            let expired = reason.hasPrefix("expired")
            let retry = expired ? nil : retryAt(delivery)
            await record(delivery, status: nil, error: reason, retryAt: retry)
            return Finished(endpointID: delivery.endpointID, holdUntil: retry)
        }
    }

    private func retryAt(_ delivery: WebhookDelivery) -> Date? {
        policy.retryAt(afterAttempt: delivery.attempt, occurredAt: delivery.occurredAt, now: Date())
    }

    private func record(_ delivery: WebhookDelivery, status: Int?, error: String, retryAt: Date?) async {
        (retryAt == nil ? Self.failed : Self.retrying).increment()
        logger.info(
            "webhooks: an attempt failed",
            metadata: [
                "herald.webhook.endpoint": "\(delivery.endpointID)", "herald.webhook.type": "\(delivery.type)",
                "herald.webhook.attempt": "\(delivery.attempt)", "herald.webhook.error": "\(error)",
                "herald.webhook.retry": "\(retryAt.map { "\($0)" } ?? "none: failed")",
            ])
        do {
            try await store.recordFailure(delivery, status: status, error: error, retryAt: retryAt)
        } catch {
            logger.warning("webhooks: cannot record a failed attempt", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    /// Listens for messages queued by any instance, again and again (each LISTEN renewed on a
    /// fresh connection after five minutes); a failure is logged and the poll carries on.
    private func listen() async {
        while !stopping {
            do {
                try await store.listenForMessages(for: .seconds(300)) { [wakeUps] in wakeUps.wake() }
            } catch {
                if Task.isCancelled { return }
                logger.warning("webhooks: cannot listen for queued messages; polling meanwhile", metadata: ["error.type": "\(type(of: error))"])
                try? await Task.sleep(for: pollInterval)
            }
        }
    }

    /// Exports how far behind delivery is, for the backlog alert.
    private func reportBacklog() async {
        while !Task.isCancelled {
            if let backlog = try? await store.backlog() {
                Self.pending.record(backlog.pending)
                Self.oldestAge.record(backlog.oldestPendingAt.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
            }
            try? await Task.sleep(for: backlogInterval)
        }
    }
}
