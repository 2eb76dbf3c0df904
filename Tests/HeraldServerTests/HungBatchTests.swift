import APNSCore
import Foundation
import HeraldCore
import HeraldDelivery
import Synchronization
import Testing

@testable import HeraldServer

/// The engine's last line of defence: a batch that never comes back (a sender without
/// deadlines, a bug) must not hold its chunk for ever. The real sender has its own deadlines
/// (StalledStreamTests); this one never answers on purpose, until the test lets it go.
@Suite(.serialized) struct HungBatchTests {
    @Test func aWorkerWhoseBatchNeverEndsLetsItsLeaseLapseAndAnotherInstanceFinishes() async throws {
        try await EngineHarness.with(adjust: {
            $0.engineWorkers = 1
            $0.engineBatchSize = 50
        }) { harness in
            try await CampaignControlTests.register(harness, 300)
            let campaign = try await harness.scheduledCampaign()
            var delivery = DeliveryConfiguration(owner: "hung")
            delivery.workers = 1
            delivery.batchSize = 50
            delivery.leaseDuration = .seconds(1)
            delivery.pollInterval = .milliseconds(50)
            delivery.batchDeadline = .seconds(2)
            let gate = HangingSenders(bundleID: EngineHarness.bundleID)
            let hung = DeliveryEngine(
                configuration: delivery, work: harness.store.campaignWork, campaigns: harness.store.campaigns,
                templates: harness.store.templates, senders: gate, logger: harness.logs.logger())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await hung.run() }
                try await harness.waitFor("the hung instance to send a batch", timeout: .seconds(180)) { gate.calls > 0 }
                try await harness.waitFor("the hung worker to let its lease lapse", timeout: .seconds(180)) {
                    harness.logs.text.contains("letting the lease lapse")
                }
                // A healthy instance takes the chunk over and finishes the campaign.
                let finished = try await harness.runToEnd(campaign, owners: ["healthy"])
                #expect(finished.state == .completed)
                #expect(finished.counters.accepted == 300)
                hung.drain()
                gate.release()
                try await group.waitForAll()
            }
            try await harness.expectConsistent(try await harness.campaign(campaign.id), devices: 300)
        }
    }
}

/// A sender that never answers until released; then every notification fails unsent.
final class HangingSenders: SenderDirectory, NotificationSender, Sendable {
    let bundleID: String
    private let state = Mutex<(calls: Int, released: Bool)>((0, false))

    init(bundleID: String) {
        self.bundleID = bundleID
    }

    var calls: Int { state.withLock { $0.calls } }

    func release() { state.withLock { $0.released = true } }

    func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender { self }

    func send(_ notifications: [APNSNotification]) async -> [SendResult] {
        state.withLock { $0.calls += 1 }
        while !state.withLock({ $0.released }) { try? await Task.sleep(for: .milliseconds(20)) }
        return notifications.map { _ in .failed(SendFailure(reason: "NotSent", detail: "released by the test")) }
    }
}
