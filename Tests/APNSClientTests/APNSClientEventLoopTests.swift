import APNSCore
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import APNSClient

/// `eventLoops`: a client's connections on a few of the group's loops, or on all of them.
@Suite struct APNSClientEventLoopTests {
    @Test(arguments: [(1, 1), (2, 2), (nil, 4)] as [(Int?, Int)])
    func shardsLiveOnTheLoopsTheyAreGiven(eventLoops: Int?, distinct: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        try await SimulatorHarness.with { h in
            let signer = try ProviderTokenSigner(
                privateKey: h.key, keyID: SimulatorHarness.keyID, teamID: SimulatorHarness.teamID)
            let client = try APNSClient(
                configuration: h.configuration {
                    $0.shards = 4
                    $0.eventLoops = eventLoops
                }, credentials: .token(signer), group: group, logger: Logger(label: "apns.test"))
            let results = await client.send((0..<200).map { SimulatorHarness.alert($0) })
            #expect(results.allSatisfy { $0.response?.status == 200 })
            let loops = try await client.connectionEventLoops()
            #expect(loops.count == 4)
            #expect(Set(loops).count == distinct)
            if eventLoops == 2 {
                // Shard i on loop i % 2.
                #expect(loops[0] == loops[2] && loops[1] == loops[3])
            }
            #expect(h.simulator.stats.accepted == 200)
            await client.shutdown()
        }
        try await group.shutdownGracefully()
    }
}
