import APNSClient
import APNSCore
import APNSSimulator
import Foundation
import Testing

/// Channel management on the simulator's management port and broadcasts on its push port,
/// over real TLS HTTP/2 (docs/live-activities.md "Broadcast channels").
@Suite struct BroadcastChannelTests {
    static let bundleID = SimulatorHarness.bundleID

    static func update(_ score: Int, timestamp: Int64) -> Payload {
        var aps = Payload.APS()
        aps.event = .update
        aps.timestamp = Int(timestamp)
        aps.contentState = .object(["score": .int(score)])
        return Payload(aps: aps)
    }

    @Test func aChannelIsCreatedListedReadBroadcastToAndDeleted() async throws {
        try await SimulatorHarness.with { h in
            let client = try h.client()
            let created = await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .create(.mostRecent)))
            let channel = try #require(created.response?.channelID, "\(created)")
            #expect(created.response?.status == 201)
            #expect(h.simulator.channels(of: Self.bundleID)[channel.value] == .mostRecent)

            let listed = await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .list))
            #expect(ChannelList.parse(listed.response?.body ?? []) == [channel])

            let request = APNSChannelRequest(bundleID: Self.bundleID, operation: .read(channel))
            let read = await client.send(request)
            #expect(read.response?.status == 200 && read.response?.requestID == request.requestID)
            #expect(ChannelSettings.parse(read.response?.body ?? [])?.storagePolicy == .mostRecent)

            let broadcast = APNSChannelRequest(
                bundleID: Self.bundleID,
                operation: .broadcast(channel, priority: .powerAware, expiration: nil, payload: Self.update(3, timestamp: 1_790_000_000)))
            #expect(await client.send(broadcast).response?.status == 200)
            let received = try #require(h.simulator.broadcasts.first)
            #expect(received.channel == channel && received.priority == .powerAware && received.bundleID == Self.bundleID)
            #expect(try Payload(json: received.payload).aps.contentState == .object(["score": .int(3)]))

            let deleted = await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .delete(channel)))
            #expect(deleted.response?.status == 204)
            #expect(h.simulator.channels(of: Self.bundleID).isEmpty)
            // A broadcast to a deleted channel is refused with the reason Herald marks it gone by.
            let late = await client.send(broadcast)
            #expect(late.response?.status == 400 && late.response?.reason == .channelNotRegistered)
            #expect(h.simulator.broadcasts.count == 1)
            await client.shutdown()
        }
    }

    @Test func badChannelRequestsAreRefusedAsAPNsRefusesThem() async throws {
        try await SimulatorHarness.with { h in
            let client = try h.client()
            let unknown = try #require(BroadcastChannelID("dW5rbm93bi1jaGFubmVs"))
            #expect(
                await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .read(unknown))).response?.reason
                    == .channelNotRegistered)
            #expect(
                await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .delete(unknown))).response?.reason
                    == .channelNotRegistered)
            // A start is not a broadcast's event: checked before it leaves.
            var start = Self.update(1, timestamp: 1)
            start.aps.event = .start
            let refused = await client.send(
                APNSChannelRequest(
                    bundleID: Self.bundleID, operation: .broadcast(unknown, priority: .immediate, expiration: nil, payload: start)))
            guard case .failed(let error) = refused else {
                Issue.record("a start payload was sent as a broadcast: \(refused)")
                return
            }
            #expect(error.reason == "InvalidNotification")
            #expect(h.simulator.stats.requestsReceived == 2)
            await client.shutdown()
        }
    }

    @Test func aClientWithoutAManagementEndpointRefusesChannelRequestsWithoutSending() async throws {
        try await SimulatorHarness.with { h in
            let client = try h.client { $0.managementEndpoint = nil }
            let result = await client.send(APNSChannelRequest(bundleID: Self.bundleID, operation: .list))
            guard case .failed(let error) = result else {
                Issue.record("sent without a management endpoint: \(result)")
                return
            }
            #expect(error.reason == "InvalidNotification")
            await client.shutdown()
        }
    }
}
