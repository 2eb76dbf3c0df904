import DequeModule
import Foundation
import HeraldCore

extension WebhookDispatcher {
    /// The run loop's bookkeeping, without I/O: messages claimed and waiting to start, attempts
    /// in flight per endpoint, and when to claim more. At most `concurrency` attempts run at
    /// once and at most `perEndpoint` per endpoint; up to `prefetch` times that many wait here,
    /// so a claim fills many slots and an attempt that ends finds the next one ready.
    struct RunState {
        let concurrency: Int
        let perEndpoint: Int
        let prefetch: Int
        private(set) var queue = Deque<WebhookDelivery>()
        private var inFlightByEndpoint = [Int64: Int]()
        private var queuedByEndpoint = [Int64: Int]()
        private(set) var inFlight = 0
        /// The last claim came back short: the outbox has nothing more due until the next tick,
        /// except for the endpoints that claim passed by or filled to their share, for which a
        /// claim is due again once one has room for half its share.
        private var dry = false
        private var dryExcept = Set<Int64>()
        private var skippedByClaim = Set<Int64>()
        /// A claim is out: one at a time.
        private(set) var isClaiming = false
        /// Endpoints that failed, until their retry: what a claim brings for them goes back.
        private var heldUntil = [Int64: Date]()

        init(concurrency: Int, perEndpoint: Int, prefetch: Int) {
            self.concurrency = concurrency
            self.perEndpoint = perEndpoint
            self.prefetch = prefetch
        }

        /// Claim when fewer messages wait than there are slots, unless a claim is out or the
        /// outbox just ran dry.
        var wantsClaim: Bool { !isClaiming && !dry && queue.count < concurrency }

        /// Enough to keep every slot busy for `prefetch` rounds.
        var claimLimit: Int { max(1, concurrency * prefetch - queue.count - inFlight) }

        /// Endpoints holding all the messages they may: not claimed for.
        var fullEndpoints: [Int64] {
            let cap = perEndpoint * prefetch
            return Set(queuedByEndpoint.keys).union(inFlightByEndpoint.keys)
                .filter { queuedByEndpoint[$0, default: 0] + inFlightByEndpoint[$0, default: 0] >= cap }.sorted()
        }

        /// A claim went out, passing by `skipping` (``fullEndpoints``).
        mutating func claimStarted(skipping: [Int64] = []) {
            isClaiming = true
            skippedByClaim = Set(skipping)
        }

        /// The claim came back: its messages wait for slots, except those of an endpoint held
        /// since it failed, returned to be given back until the endpoint's retry.
        @discardableResult
        mutating func claimed(_ deliveries: [WebhookDelivery], asked: Int, now: Date = Date()) -> [(Date, [Int64])] {
            isClaiming = false
            var held = [Int64: [Int64]]()
            for delivery in deliveries {
                if let until = heldUntil[delivery.endpointID], until > now {
                    held[delivery.endpointID, default: []].append(delivery.id)
                    continue
                }
                queue.append(delivery)
                queuedByEndpoint[delivery.endpointID, default: 0] += 1
            }
            // Short, it found all that is due, but for the endpoints it passed by or filled up
            // to their share: they may have more.
            dry = deliveries.count < asked
            dryExcept = dry ? skippedByClaim.union(fullEndpoints) : []
            return held.keys.sorted().map { (heldUntil[$0]!, held[$0]!) }
        }

        /// The oldest waiting message whose endpoint has a free slot, taken out and counted in
        /// flight; nil when every slot is busy or nothing waiting may start.
        mutating func nextToStart() -> WebhookDelivery? {
            guard inFlight < concurrency else { return nil }
            guard let index = queue.firstIndex(where: { inFlightByEndpoint[$0.endpointID, default: 0] < perEndpoint }) else {
                return nil
            }
            let delivery = queue.remove(at: index)
            decrement(&queuedByEndpoint, delivery.endpointID)
            inFlightByEndpoint[delivery.endpointID, default: 0] += 1
            inFlight += 1
            return delivery
        }

        mutating func finished(endpointID: Int64) {
            decrement(&inFlightByEndpoint, endpointID)
            inFlight -= 1
            // An endpoint that was too busy to claim for has room again: its messages may be due.
            let held = queuedByEndpoint[endpointID, default: 0] + inFlightByEndpoint[endpointID, default: 0]
            if dry, dryExcept.contains(endpointID), held <= perEndpoint * prefetch / 2 {
                dry = false
            }
        }

        /// The poll interval passed: the outbox may have something due again.
        mutating func ticked(now: Date = Date()) {
            dry = false
            heldUntil = heldUntil.filter { $0.value > now }
        }

        /// The endpoint failed and is tried again at `until`: its waiting messages are taken out
        /// (to give back), and so will be what a claim out now brings for it.
        mutating func hold(endpointID: Int64, until: Date) -> [Int64] {
            heldUntil[endpointID] = until
            return takeQueued(endpointID: endpointID)
        }

        /// Takes the endpoint's waiting messages out (to give them back).
        mutating func takeQueued(endpointID: Int64) -> [Int64] {
            let ids = queue.filter { $0.endpointID == endpointID }.map(\.id)
            queue.removeAll { $0.endpointID == endpointID }
            queuedByEndpoint[endpointID] = nil
            return ids
        }

        mutating func takeAllQueued() -> [Int64] {
            defer {
                queue.removeAll()
                queuedByEndpoint.removeAll()
            }
            return queue.map(\.id)
        }

        private func decrement(_ counts: inout [Int64: Int], _ key: Int64) {
            let left = counts[key, default: 1] - 1
            counts[key] = left > 0 ? left : nil
        }
    }
}
