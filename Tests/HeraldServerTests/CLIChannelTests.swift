import APNSSimulator
import Foundation
import HeraldTestSupport
import Testing

/// `herald channels …` as a user runs it, against the simulator's management port over TLS.
extension CLITests {
    @Test func channelsAreCreatedListedAndDeletedAtAPNsAndBadInputExitsWithOneLine() async throws {
        var configuration = SimulatorConfiguration(acceptAnySignature: true)
        configuration.managementPort = 0
        let simulator = try await APNSSimulator.start(configuration: configuration)
        defer { Task { try? await simulator.shutdown() } }
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("sim-ca-\(UUID()).pem").path
        try simulator.caPEM.write(toFile: ca, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let management = try #require(simulator.managementPort)
        try await TestDatabase.withDatabase { url in
            let secret = try await addApp(url)
            func run(_ arguments: [String]) async throws -> Run {
                try await herald(arguments, database: url, extraEnvironment: secret)
            }
            // Pushes go to the simulator but no management endpoint is named: never Apple's.
            let pointed = try await run(
                ["apps", "update", "com.example.cli", "--apns-endpoint", "https://127.0.0.1:\(simulator.port)", "--apns-ca-file", ca])
            #expect(pointed.status == 0, "\(pointed.stderr)")
            let refused = try await run(["channels", "create", "com.example.cli"])
            #expect(refused.status != 0 && refused.stderr.contains("management endpoint"), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")

            let set = try await run(["apps", "update", "com.example.cli", "--apns-management-endpoint", "https://127.0.0.1:\(management)"])
            #expect(set.status == 0 && set.stdout.contains("channel management https://127.0.0.1:\(management)"), "\(set.stdout)")
            let created = try await run(["channels", "create", "com.example.cli", "--activity", "match-1", "--storage-policy", "0"])
            #expect(created.status == 0, "\(created.stderr)")
            let channelID = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(simulator.channels(of: "com.example.cli")[channelID] == .noStorage)
            let list = try await run(["channels", "list", "com.example.cli"])
            #expect(list.status == 0 && list.stdout.contains(channelID) && list.stdout.contains("match-1"), "\(list.stdout)")
            let remote = try await run(["channels", "remote", "com.example.cli"])
            #expect(remote.status == 0 && remote.stdout.contains(channelID) && remote.stdout.contains("yes"), "\(remote.stdout)")
            let cases: [([String], String)] = [
                (["channels", "create", "com.example.cli", "--storage-policy", "3"], "--storage-policy"),
                (["channels", "create", "com.example.cli", "--environment", "moon"], "--environment"),
                (["channels", "create", "com.example.cli", "--activity", "match-1"], "already has"),
                (["channels", "create", "com.example.cli", "--activity", "a\u{1}b"], "ACTIVITY_ID"),
                (["channels", "show", "com.example.cli", "not base64!"], "CHANNEL_ID"),
                (["channels", "delete", "com.example.cli", "dW5rbm93bi1jaGFubmVs"], "no channel"),
                (["channels", "list", "com.example.cli", "--state", "lost"], "--state"),
                (["channels", "list", "com.example.nope"], "no app"),
            ]
            for (arguments, message) in cases {
                let result = try await run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            #expect(simulator.channels(of: "com.example.cli").count == 1)
            let deleted = try await run(["channels", "delete", "com.example.cli", channelID])
            #expect(deleted.status == 0 && deleted.stdout.contains("deleted"), "\(deleted.stderr)")
            #expect(simulator.channels(of: "com.example.cli").isEmpty)
        }
    }
}
