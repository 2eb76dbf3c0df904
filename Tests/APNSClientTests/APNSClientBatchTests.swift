import APNSClient
import APNSCore
import APNSSimulator
import Foundation
import Testing

/// The batch API campaigns use: results in order, one per notification, the same retry rules.
@Suite struct APNSClientBatchTests {
    @Test func aBatchAnswersEachNotificationInOrderWithItsOwnOutcome() async throws {
        let when = Date(timeIntervalSince1970: 1_790_000_000)
        let fault = SimulatorFaultScript(
            unregistered: [SimulatorHarness.token(3).hex: when], badDeviceTokens: [SimulatorHarness.token(5).hex])
        try await SimulatorHarness.with(fault: fault) { h in
            let client = try h.client { $0.shards = 3 }
            var notifications = (0..<300).map { SimulatorHarness.alert($0) }
            // An invalid one never leaves, and does not hold up the rest.
            notifications[7] = SimulatorHarness.alert(7, body: String(repeating: "x", count: 5_000))
            let results = await client.send(notifications)
            #expect(results.count == 300)
            #expect(results[3].response?.status == 410)
            #expect(results[3].response?.timestamp == APNSTimestamp(when))
            #expect(results[5].response?.reason == .badDeviceToken)
            guard case .failed = results[7] else {
                Issue.record("an oversized notification was sent: \(results[7])")
                return
            }
            for (index, result) in results.enumerated() where ![3, 5, 7].contains(index) {
                #expect(result.response?.status == 200)
                #expect(result.response?.apnsID == notifications[index].apnsID)
            }
            #expect(h.simulator.stats.accepted == 297)
            await client.shutdown()
        }
    }

    @Test(.timeLimit(.minutes(5)))  // a hang fails; the full suite on 2 cores can take ~1 min
    func goAwayMidBatchLosesNothingAndSendsNothingTwice() async throws {
        try await SimulatorHarness.with(fault: SimulatorFaultScript(goAwayAfterRequests: 120)) { h in
            // Every batch opens its streams at once, far past the GOAWAY: streams below the
            // last-stream-id are answered, those above are sent again on a new connection.
            let client = try h.client {
                $0.shards = 1
                $0.maximumInFlightPerShard = 1_000
            }
            let results = await withTaskGroup(of: [APNSDeliveryResult].self) { group in
                for batch in 0..<4 {
                    group.addTask { await client.send((0..<250).map { SimulatorHarness.alert(batch * 250 + $0) }) }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(results.count == 1_000)
            #expect(results.allSatisfy { $0.response?.status == 200 })
            let stats = h.simulator.stats
            #expect(stats.accepted == 1_000)
            #expect(stats.requestsReceived == 1_000)
            #expect(stats.goAwaysSent >= 3)
            await client.shutdown()
        }
    }

    @Test func serverErrorsInABatchAreRetriedAndTooManyRequestsDeferred() async throws {
        let fault = SimulatorFaultScript(tooManyRequestsFraction: 0.1, internalErrorFraction: 0.2)
        try await SimulatorHarness.with(fault: fault) { h in
            let client = try h.client { $0.maximumAttempts = 8 }
            let results = await client.send((0..<400).map { SimulatorHarness.alert($0) })
            let deferred = results.filter { if case .deferred = $0 { true } else { false } }
            let accepted = results.filter { $0.response?.status == 200 }
            #expect(deferred.count + accepted.count == 400)
            #expect(!deferred.isEmpty)
            #expect(h.simulator.stats.accepted == accepted.count)
            await client.shutdown()
        }
    }

    @Test func aBatchLargerThanTheInFlightBoundStillCompletes() async throws {
        try await SimulatorHarness.with { h in
            let client = try h.client {
                $0.shards = 2
                $0.maximumInFlightPerShard = 16
            }
            let results = await client.send((0..<500).map { SimulatorHarness.alert($0) })
            #expect(results.allSatisfy { $0.response?.status == 200 })
            #expect(h.simulator.stats.accepted == 500)
            await client.shutdown()
        }
    }
}
