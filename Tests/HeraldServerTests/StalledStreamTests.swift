import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import Testing

@testable import HeraldServer

/// An APNs peer that never answers some streams while answering the rest (a stream lost in a
/// half-open connection or a middlebox): the request deadline resets them, they are sent again
/// with the same apns-id, and every campaign and transactional send still finishes.
@Suite(.serialized) struct StalledStreamTests {
    @Test func aCampaignThroughAPeerThatLeavesStreamsUnansweredCompletesWithOneOutcomeEach() async throws {
        try await EngineHarness.with(
            // The deadline is 5 s: a notification fails after four attempts, and on a machine running
            // the whole suite four answers in a row slower than 2 s happened (9,995 of 10,000).
            fault: SimulatorFaultScript(stallFraction: 0.005), adjust: { $0.apnsRequestTimeoutMilliseconds = 5_000 }
        ) { harness in
            let devices = 10_000
            try await CampaignControlTests.register(harness, devices)
            // 10,000 sends, 50 of them waiting out a 5-second deadline: on a machine running the whole
            // suite at once this takes minutes, so the bound is generous (it only guards against a hang).
            let campaign = try await harness.runToEnd(try await harness.scheduledCampaign(), timeout: .seconds(480))
            #expect(campaign.state == .completed)
            #expect(campaign.counters.accepted == devices)
            let rows = try await harness.deliveries(campaign.id)
            #expect(rows.count == devices && rows.values.allSatisfy { $0.outcome == "accepted" })
            let stats = harness.simulator.stats
            #expect(stats.stalled >= 10, "the peer stalled only \(stats.stalled) streams")
            // Each stalled notification was reset, sent again with its original apns-id, accepted.
            let received = try harness.received().map { $0.apnsID.lowercased() }
            let ledger = Set(rows.values.compactMap { $0.apnsID?.uuidString.lowercased() })
            #expect(Set(received) == ledger)
            for apnsID in stats.stalledAPNSIDs {
                #expect(ledger.contains(apnsID), "stalled \(apnsID) was not delivered again")
            }
            // An answer slower than the timeout (a loaded machine) makes a second copy, but always
            // with the device's own apns-id (the set equality above), so the device shows one.
            #expect(harness.logs.text.contains("timed out"))
        }
    }

    @Test func aTransactionalSendAnswersWithinItsDeadlineOnTheSamePeer() async throws {
        try await EngineHarness.with(
            fault: SimulatorFaultScript(stallFraction: 0.05), adjust: { $0.apnsRequestTimeoutMilliseconds = 2_000 }
        ) { harness in
            try await harness.withAPI { api in
                let tokens = (0..<100).map { "\"\(EngineHarness.token($0).hex)\"" }.joined(separator: ",")
                let reply = try await api.request(
                    .post, NotificationAPITests.path, key: api.appKey,
                    body: #"{"tokens": [\#(tokens)], "template": {"name": "flash-sale", "variables": {"percentOff": 30, "endTime": "midnight"}}}"#)
                #expect(reply.status == .ok, "\(reply.body)")
                #expect((reply.json["summary"] as? [String: Int]) == ["accepted": 100], "\(reply.body)")
            }
            #expect(harness.simulator.stats.stalled > 0)
        }
    }

    @Test func attemptsRunOutAsAFailureWithItsOwnReason() async throws {
        try await EngineHarness.with(
            fault: SimulatorFaultScript(stallFraction: 1), adjust: { $0.apnsRequestTimeoutMilliseconds = 300 }
        ) { harness in
            try await harness.withAPI { api in
                let reply = try await api.request(
                    .post, NotificationAPITests.path, key: api.appKey,
                    body:
                        #"{"tokens": ["\#(EngineHarness.token(1).hex)"], "template": {"name": "flash-sale", "variables": {"percentOff": 30, "endTime": "midnight"}}}"#
                )
                #expect(reply.status == .ok, "\(reply.body)")
                let result = try #require((reply.json["results"] as? [[String: Any]])?.first)
                #expect(result["outcome"] as? String == "failed")
                #expect(result["reason"] as? String == "Timeout")
            }
            // Four attempts, each reset at its deadline, all with the same apns-id.
            let stalled = harness.simulator.stats.stalledAPNSIDs
            #expect(stalled.count == 4 && Set(stalled).count == 1)
        }
    }
}
