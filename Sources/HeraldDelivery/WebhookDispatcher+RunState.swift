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
        /// The last claim came back short: the outbox has nothing more due until the next tick.
        private var dry = false

        init(concurrency: Int, perEndpoint: Int, prefetch: Int) {
            self.concurrency = concurrency
            self.perEndpoint = perEndpoint
            self.prefetch = prefetch
        }

        /// Claim when fewer messages wait than there are slots, unless the outbox just ran dry.
        var wantsClaim: Bool { !dry && queue.count < concurrency }

        /// Enough to keep every slot busy for `prefetch` rounds.
        var claimLimit: Int { max(1, concurrency * prefetch - queue.count - inFlight) }

        /// Endpoints holding all the messages they may: not claimed for.
        var fullEndpoints: [Int64] {
            let cap = perEndpoint * prefetch
            return Set(queuedByEndpoint.keys).union(inFlightByEndpoint.keys)
                .filter { queuedByEndpoint[$0, default: 0] + inFlightByEndpoint[$0, default: 0] >= cap }.sorted()
        }

        mutating func claimed(_ deliveries: [WebhookDelivery], asked: Int) {
            dry = deliveries.count < asked
            for delivery in deliveries {
                queue.append(delivery)
                queuedByEndpoint[delivery.endpointID, default: 0] += 1
            }
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
        }

        /// The poll interval passed: the outbox may have something due again.
        mutating func ticked() {
            dry = false
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
