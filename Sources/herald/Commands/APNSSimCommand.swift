import APNSCore
import APNSSimulator
import ArgumentParser
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

struct APNSSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sim",
        abstract: "Run the APNs simulator: TLS HTTP/2 on loopback, checking requests as APNs does, with scripted faults.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0: any free port).") var port = 2197
    @Option(help: "Port of the broadcast channel management API (0: any free port; 'none': none).")
    var managementPort = "0"
    @Option(help: "Write the simulator's CA certificate (PEM) here, for clients to trust.") var caOut: String?
    @Option(help: "A provider key clients sign with, as KEYID=FILE (the .p8 or its public key PEM); repeatable.")
    var providerKey: [String] = []
    @Flag(help: "Accept provider tokens without checking their signature.") var acceptAnySignature = false
    @Option(help: "CA certificates (PEM) whose client certificates authenticate instead of a provider token.")
    var clientCAFile: String?
    @Flag(help: "Refuse the TLS handshake of clients without such a certificate (needs --client-ca-file).")
    var requireClientCertificates = false
    @Option(help: "SETTINGS_MAX_CONCURRENT_STREAMS after the first valid token.") var maxConcurrentStreams = 1000
    @Option(help: "Append each accepted notification as a JSON line to this file.") var record: String?
    @Option(help: "Answer 410 Unregistered for this token, as HEX=UNIX_MILLISECONDS; repeatable.") var unregistered: [String] = []
    @Option(help: "A file of HEX UNIX_MILLISECONDS lines answered 410 Unregistered.") var unregisteredFile: String?
    @Option(help: "Answer 400 BadDeviceToken for this hex token; repeatable.") var badDeviceToken: [String] = []
    @Option(help: "Fraction of requests answered 429 TooManyRequests.") var tooManyRequests = 0.0
    @Option(help: "Fraction answered 500 InternalServerError.") var internalErrors = 0.0
    @Option(help: "Fraction answered 503 ServiceUnavailable.") var serviceUnavailable = 0.0
    @Option(help: "Send GOAWAY after this many requests on each connection.") var goAwayAfter: Int?
    @Option(help: "Delay every answer by this many milliseconds.") var delayMilliseconds: Int?
    @Option(help: "Fraction of requests never answered (the stream stays open and silent).") var stall = 0.0
    @Option(
        help:
            "Answer 429 TooManyProviderTokenUpdates to a team's new provider token issued sooner than this many seconds after its newest (APNs: 1200)."
    )
    var providerTokenUpdateInterval: Int?

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "herald.apns-sim")
        var keys = [String: P256.Signing.PublicKey]()
        for entry in providerKey {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let text = try? String(contentsOfFile: parts[1], encoding: .utf8) else {
                throw CLIError("--provider-key must be KEYID=FILE with a readable file")
            }
            if let key = try? P256.Signing.PrivateKey(pemRepresentation: text) {
                keys[parts[0]] = key.publicKey
            } else if let key = try? P256.Signing.PublicKey(pemRepresentation: text) {
                keys[parts[0]] = key
            } else {
                throw CLIError("--provider-key \(parts[0]): not a P-256 key in PEM")
            }
        }
        var clientCA: String?
        if let clientCAFile {
            clientCA = try CLIError.caPEM(file: clientCAFile, flag: "--client-ca-file")
        } else if requireClientCertificates {
            throw CLIError("--require-client-certificates needs --client-ca-file")
        }
        var gone = [String: Date]()
        var lines = unregistered.map { $0.replacingOccurrences(of: "=", with: " ") }
        if let unregisteredFile {
            guard let text = try? String(contentsOfFile: unregisteredFile, encoding: .utf8) else {
                throw CLIError("--unregistered-file: cannot read \(unregisteredFile)")
            }
            lines += text.split(separator: "\n").map(String.init)
        }
        for line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let milliseconds = Double(parts[1]) else {
                throw CLIError("--unregistered: expected HEX=UNIX_MILLISECONDS, got a malformed entry")
            }
            gone[parts[0].lowercased()] = Date(timeIntervalSince1970: milliseconds / 1000)
        }
        if let interval = providerTokenUpdateInterval, interval < 0 {
            throw CLIError("--provider-token-update-interval: must be 0 or more seconds")
        }
        var configuration = SimulatorConfiguration(
            host: host, port: port, providerKeys: keys, acceptAnySignature: acceptAnySignature,
            maxConcurrentStreams: maxConcurrentStreams, recordFile: record,
            fault: SimulatorFaultScript(
                unregistered: gone, badDeviceTokens: Set(badDeviceToken.map { $0.lowercased() }),
                tooManyRequestsFraction: tooManyRequests, internalErrorFraction: internalErrors,
                serviceUnavailableFraction: serviceUnavailable, goAwayAfterRequests: goAwayAfter,
                responseDelay: delayMilliseconds.map { .milliseconds($0) }, stallFraction: stall),
            clientCertificateAuthorityPEM: clientCA, requireClientCertificates: requireClientCertificates)
        configuration.providerTokenUpdateInterval = providerTokenUpdateInterval.map { .seconds($0) }
        if managementPort != "none" {
            guard let value = Int(managementPort), (0...65_535).contains(value) else {
                throw CLIError("--management-port must be a port number (0 for any free one) or 'none'")
            }
            configuration.managementPort = value
        }
        let simulator = try await APNSSimulator.start(configuration: configuration, logger: logger)
        if let caOut {
            do {
                try simulator.caPEM.write(toFile: caOut, atomically: true, encoding: .utf8)
            } catch {
                try? await simulator.shutdown()
                throw CLIError("--ca-out: cannot write \(caOut)")
            }
        }
        // Unbuffered: a parent process (herald bench campaign) reads the address from this line.
        var announcement = "APNs simulator on https://\(simulator.host):\(simulator.port)\n"
        if let managementPort = simulator.managementPort {
            announcement += "channel management on https://\(simulator.host):\(managementPort)\n"
        }
        FileHandle.standardOutput.write(Data(announcement.utf8))
        let group = ServiceGroup(
            services: [SimulatorService(simulator: simulator)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        let stats = simulator.stats
        print("accepted \(stats.accepted) of \(stats.requestsReceived) requests on \(stats.connectionsOpened) connections")
    }
}

/// Keeps the simulator up until a graceful shutdown, then stops it.
struct SimulatorService: Service {
    let simulator: APNSSimulator

    func run() async throws {
        try? await gracefulShutdown()
        try await simulator.shutdown()
    }
}
