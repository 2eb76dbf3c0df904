import APNSClient
import APNSCore
import APNSSimulator
import Crypto
import Foundation
import Logging

/// A simulator on loopback over real TLS HTTP/2, and clients that trust its CA.
struct SimulatorHarness {
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.herald"

    let simulator: APNSSimulator
    let key: P256.Signing.PrivateKey

    static func with<Result>(
        fault: SimulatorFaultScript = SimulatorFaultScript(), maxConcurrentStreams: Int = 1000,
        _ body: (SimulatorHarness) async throws -> Result
    ) async throws -> Result {
        let key = P256.Signing.PrivateKey()
        var configuration = SimulatorConfiguration(
            providerKeys: [keyID: key.publicKey], maxConcurrentStreams: maxConcurrentStreams, fault: fault)
        configuration.managementPort = 0
        let simulator = try await APNSSimulator.start(configuration: configuration)
        do {
            let result = try await body(SimulatorHarness(simulator: simulator, key: key))
            try await simulator.shutdown()
            return result
        } catch {
            try? await simulator.shutdown()
            throw error
        }
    }

    func configuration(_ adjust: (inout APNSClientConfiguration) -> Void = { _ in }) -> APNSClientConfiguration {
        var configuration = APNSClientConfiguration(endpoint: APNSEndpoint(host: simulator.host, port: simulator.port))
        configuration.additionalTrustRootsPEM = simulator.caPEM
        configuration.managementEndpoint = simulator.managementPort.map { APNSEndpoint(host: simulator.host, port: $0) }
        configuration.retryBaseDelay = .milliseconds(10)
        configuration.maximumRetryDelay = .milliseconds(100)
        adjust(&configuration)
        return configuration
    }

    func client(
        signingKey: P256.Signing.PrivateKey? = nil, _ adjust: (inout APNSClientConfiguration) -> Void = { _ in }
    ) throws -> APNSClient {
        let signer = try ProviderTokenSigner(privateKey: signingKey ?? key, keyID: Self.keyID, teamID: Self.teamID)
        return try APNSClient(
            configuration: configuration(adjust), credentials: .token(signer), logger: Logger(label: "apns.test"))
    }

    static func token(_ n: Int) -> DeviceToken {
        try! DeviceToken(hex: String(format: "%016llx%016llx", UInt64(n), UInt64(n) &* 0x9E37_79B9_7F4A_7C15))
    }

    static func alert(_ n: Int, body: String = "Hello") -> APNSNotification {
        APNSNotification(token: token(n), bundleID: bundleID, payload: Payload(aps: .init(alert: .body(body))))
    }
}

/// Runs `count` sends with at most `width` in flight and returns every result in order.
func sendAll(
    _ client: APNSClient, count: Int, width: Int, make: @escaping @Sendable (Int) -> APNSNotification
) async
    -> [APNSDeliveryResult]
{
    await withTaskGroup(of: (Int, APNSDeliveryResult).self) { group in
        var results = [APNSDeliveryResult?](repeating: nil, count: count)
        var next = 0
        while next < min(width, count) {
            let n = next
            group.addTask { (n, await client.send(make(n))) }
            next += 1
        }
        for await (n, result) in group {
            results[n] = result
            if next < count {
                let m = next
                group.addTask { (m, await client.send(make(m))) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
