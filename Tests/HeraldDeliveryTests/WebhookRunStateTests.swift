import Foundation
import HeraldCore
import Testing

@testable import HeraldDelivery

/// The webhook dispatcher's bookkeeping without I/O: slots, per-endpoint caps, claiming ahead
/// and giving back.
@Suite struct WebhookRunStateTests {
    func delivery(_ id: Int64, endpoint: Int64) -> WebhookDelivery {
        WebhookDelivery(
            id: id, endpointID: endpoint, messageID: UUID(), url: "https://hooks.example.com/\(endpoint)", secret: "s",
            type: "device.invalidated", body: "{}", attempt: 1, occurredAt: Date())
    }

    @Test func claimsAheadAndStartsWithinTheSlotsAndEachEndpointsCap() {
        var run = WebhookDispatcher.RunState(concurrency: 4, perEndpoint: 2, prefetch: 4)
        #expect(run.wantsClaim && run.claimLimit == 16)
        run.claimed((1...6).map { delivery($0, endpoint: 1) } + (7...9).map { delivery($0, endpoint: 2) }, asked: 16)
        var started = [Int64]()
        while let next = run.nextToStart() { started.append(next.id) }
        // Two of endpoint 1 (its cap), then two of endpoint 2 fill the four slots.
        #expect(started == [1, 2, 7, 8] && run.inFlight == 4)
        // The claim came back short: the outbox is dry until the next tick.
        #expect(!run.wantsClaim)
        run.ticked()
        #expect(!run.wantsClaim, "five wait for four slots: no claim needed")
        run.finished(endpointID: 1)
        #expect(run.nextToStart()?.id == 3)
        #expect(run.nextToStart() == nil, "every slot is busy")
        run.finished(endpointID: 2)
        #expect(run.nextToStart()?.id == 9, "endpoint 1 is at its cap: endpoint 2's message goes first")
    }

    @Test func aFullEndpointIsNotClaimedForAndAFailedOnesQueueIsGivenBack() {
        var run = WebhookDispatcher.RunState(concurrency: 2, perEndpoint: 1, prefetch: 4)
        run.claimed((1...4).map { delivery($0, endpoint: 5) } + [delivery(9, endpoint: 6)], asked: 8)
        #expect(run.fullEndpoints == [5])
        #expect(run.nextToStart()?.id == 1 && run.nextToStart()?.id == 9)
        run.finished(endpointID: 5)
        #expect(run.takeQueued(endpointID: 5) == [2, 3, 4])
        #expect(run.fullEndpoints.isEmpty && run.queue.isEmpty)
        run.claimed([delivery(10, endpoint: 7)], asked: 1)
        #expect(run.takeAllQueued() == [10] && run.queue.isEmpty && run.wantsClaim)
    }

    /// One claim out at a time; what it brings for an endpoint that failed meanwhile goes back
    /// until the endpoint's retry, and nothing is held once the retry is due.
    @Test func oneClaimAtATimeAndAHeldEndpointsMessagesGoBackUntilItsRetry() {
        var run = WebhookDispatcher.RunState(concurrency: 2, perEndpoint: 2, prefetch: 4)
        let now = Date()
        run.claimStarted()
        #expect(!run.wantsClaim && run.isClaiming)
        run.claimed([delivery(1, endpoint: 5), delivery(2, endpoint: 5), delivery(3, endpoint: 5)], asked: 3, now: now)
        #expect(!run.isClaiming)
        #expect(run.nextToStart()?.id == 1)
        run.claimStarted()
        // Endpoint 5 fails while a claim is out: its waiting message goes back at once…
        run.finished(endpointID: 5)
        let retry = now.addingTimeInterval(60)
        #expect(run.hold(endpointID: 5, until: retry) == [2, 3])
        // …and so do its messages the claim brings; endpoint 6's wait for slots.
        let back = run.claimed([delivery(4, endpoint: 5), delivery(5, endpoint: 6)], asked: 8, now: now)
        #expect(back.count == 1 && back.first?.0 == retry && back.first?.1 == [4])
        #expect(run.queue.map(\.id) == [5])
        // Once the retry is due, the endpoint's messages are taken again.
        run.ticked(now: retry.addingTimeInterval(1))
        #expect(run.claimed([delivery(6, endpoint: 5)], asked: 1, now: retry.addingTimeInterval(1)).isEmpty)
        #expect(run.queue.map(\.id) == [5, 6])
    }

    /// A claim that came back short because an endpoint reached its share (or was passed by
    /// as full) says nothing about that endpoint's backlog: once it has room for half its
    /// share, a claim is due again without waiting for the poll (one busy endpoint was held to
    /// one share per poll interval).
    @Test func aFullEndpointIsClaimedForAgainOnceItHasRoomWithoutWaitingForThePoll() {
        var run = WebhookDispatcher.RunState(concurrency: 16, perEndpoint: 4, prefetch: 4)
        run.claimStarted()
        // Its share of sixteen, of the 64 asked: short, but not dry for endpoint 3.
        run.claimed((1...16).map { delivery($0, endpoint: 3) }, asked: 64)
        while run.nextToStart() != nil {}
        #expect(run.fullEndpoints == [3] && run.inFlight == 4 && !run.wantsClaim)
        // Endpoint 3 works through its share; at half of it, a claim is due again.
        for _ in 0..<7 {
            run.finished(endpointID: 3)
            _ = run.nextToStart()
        }
        #expect(!run.wantsClaim, "nine held of sixteen")
        run.finished(endpointID: 3)
        #expect(run.wantsClaim, "eight held: half its share")
        // A claim that passes it by (full again) and finds nothing else: the same.
        run.claimStarted(skipping: [3])
        run.claimed([], asked: 40)
        #expect(!run.wantsClaim)
        run.finished(endpointID: 3)
        _ = run.nextToStart()
        #expect(run.wantsClaim, "seven held")
        // A short claim while no endpoint is full or passed by: dry until the tick.
        run.claimStarted()
        run.claimed([delivery(40, endpoint: 4)], asked: 40)
        run.finished(endpointID: 3)
        _ = run.nextToStart()
        #expect(!run.wantsClaim)
    }
}
