import APNSCore
import APNSSimulator
import Foundation
import HeraldTestSupport
import Logging
import Testing

@testable import APNSClient

/// Certificate authentication end to end: `.p12` files opened as Keychain Access exports them,
/// and a simulator that requires client certificates, over real TLS (docs/apns.md "Certificates").
@Suite struct ClientCertificateTests {
    static let bundleID = SimulatorHarness.bundleID

    @Test func aP12OpensWithItsPasswordAndSaysWhatItIsFor() throws {
        let made = try TestClientCertificate.make(uid: Self.bundleID, topics: [Self.bundleID, "\(Self.bundleID).voip"])
        let certificate = try APNSClientCertificate(pkcs12: try made.pkcs12(password: "s3cret"), password: "s3cret")
        #expect(certificate.identity.uid == Self.bundleID)
        #expect(certificate.identity.topics == [Self.bundleID, "\(Self.bundleID).voip"])
        #expect(certificate.identity.subject == "UID=\(Self.bundleID), CN=Apple Push Services: \(Self.bundleID)")
        #expect(abs(certificate.identity.notValidAfter.timeIntervalSince(made.certificate.notValidAfter)) < 1)
        #expect(certificate.fingerprint.count == 16 && certificate.fingerprint.allSatisfy(\.isHexDigit))
        // Without the topics extension, the UID is the one topic.
        let plain = try TestClientCertificate.make(uid: "com.example.plain")
        #expect(try APNSClientCertificate(pkcs12: try plain.pkcs12(password: ""), password: "").identity.topics == ["com.example.plain"])
    }

    @Test func aWrongPasswordAndAFileThatIsNoP12AreToldApart() throws {
        let p12 = try TestClientCertificate.make(uid: Self.bundleID).pkcs12(password: "right")
        #expect(throws: APNSClientCertificate.Problem.wrongPassword) { try APNSClientCertificate(pkcs12: p12, password: "wrong") }
        #expect(throws: APNSClientCertificate.Problem.wrongPassword) { try APNSClientCertificate(pkcs12: p12, password: "") }
        for bytes in [[], Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8), [0x30, 0x03, 0x02, 0x01, 0x05], Array(p12.prefix(40))] {
            #expect(throws: APNSClientCertificate.Problem.notPKCS12) { try APNSClientCertificate(pkcs12: bytes, password: "right") }
        }
    }

    @Test func aClientCertificateAuthenticatesWithoutAProviderToken() async throws {
        let authority = TestCertificateAuthority()
        let made = try TestClientCertificate.make(uid: Self.bundleID, issuer: authority)
        try await Self.withSimulator(trusting: authority) { simulator in
            let client = try Self.client(simulator, made)
            let results = await sendAll(client, count: 50, width: 20) { SimulatorHarness.alert($0) }
            await client.shutdown()
            #expect(results.allSatisfy { if case .answered(let response) = $0 { response.status == 200 } else { false } })
            #expect(simulator.stats.accepted == 50)
        }
    }

    @Test func aCertificateForAnotherTopicIsRefusedAsAPNsDoes() async throws {
        let authority = TestCertificateAuthority()
        let other = try TestClientCertificate.make(uid: "com.example.other", issuer: authority)
        try await Self.withSimulator(trusting: authority) { simulator in
            let client = try Self.client(simulator, other)
            let result = await client.send(SimulatorHarness.alert(1))
            await client.shutdown()
            guard case .answered(let response) = result else {
                Issue.record("no answer: \(result)")
                return
            }
            #expect(response.status == 400 && response.reason == .topicDisallowed)
        }
    }

    /// A peer that refuses the handshake (no certificate, or one from a CA it does not trust)
    /// ends each send with a failure, never a hang: credentials refused, not retried forever.
    @Test func aRefusedHandshakeFailsTheSendsInsteadOfHanging() async throws {
        let authority = TestCertificateAuthority()
        let stranger = try TestClientCertificate.make(uid: Self.bundleID)
        try await Self.withSimulator(trusting: authority) { simulator in
            for client in [try Self.client(simulator, stranger), try SimulatorHarness.tokenClient(simulator)] {
                let result = await client.send(SimulatorHarness.alert(1))
                await client.shutdown()
                guard case .failed(let error) = result else {
                    Issue.record("not a failure: \(result)")
                    continue
                }
                #expect(error.isCredentialsRejected, "\(error)")
            }
            #expect(simulator.stats.accepted == 0)
        }
    }

    static func withSimulator(
        trusting authority: TestCertificateAuthority, _ body: (APNSSimulator) async throws -> Void
    ) async throws {
        let simulator = try await APNSSimulator.start(
            configuration: SimulatorConfiguration(clientCertificateAuthorityPEM: authority.pem, requireClientCertificates: true))
        do {
            try await body(simulator)
            try await simulator.shutdown()
        } catch {
            try? await simulator.shutdown()
            throw error
        }
    }

    static func client(_ simulator: APNSSimulator, _ made: TestClientCertificate) throws -> APNSClient {
        let certificate = try APNSClientCertificate(chainPEM: made.certificatePEM, keyPEM: made.keyPEM)
        return try APNSClient(
            configuration: SimulatorHarness.configuration(simulator), credentials: .certificate(certificate),
            logger: Logger(label: "apns.test"))
    }
}

extension SimulatorHarness {
    static func configuration(_ simulator: APNSSimulator) -> APNSClientConfiguration {
        var configuration = APNSClientConfiguration(endpoint: APNSEndpoint(host: simulator.host, port: simulator.port))
        configuration.additionalTrustRootsPEM = simulator.caPEM
        configuration.retryBaseDelay = .milliseconds(10)
        configuration.maximumRetryDelay = .milliseconds(100)
        return configuration
    }

    static func tokenClient(_ simulator: APNSSimulator) throws -> APNSClient {
        let signer = try ProviderTokenSigner(privateKey: .init(), keyID: keyID, teamID: teamID)
        return try APNSClient(configuration: configuration(simulator), credentials: .token(signer), logger: Logger(label: "apns.test"))
    }
}

@Suite struct HandshakeRefusalTests {
    @Test func alertsAboutTheClientsCertificateAreCredentialRefusals() {
        let received = "sslError([Error: 268436572 error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED at x.cc:491])"
        let refusal = APNSClientError.handshakeRefusal(received)
        #expect(refusal?.isCredentialsRejected == true)
        #expect(refusal?.detail == "the server refused the TLS client credentials (alert: certificate required)")
        #expect(
            APNSClientError.handshakeRefusal("error:1000042a:SSL routines:OPENSSL_internal:SSLV3_ALERT_CERTIFICATE_REVOKED")?.isCredentialsRejected
                == true)
        // Our own refusal of the server's certificate, a reset or a timeout stay retryable.
        for other in ["CERTIFICATE_VERIFY_FAILED", "connection reset by peer", "TLSV1_ALERT_PROTOCOL_VERSION", "read timeout"] {
            #expect(APNSClientError.handshakeRefusal(other) == nil, "\(other)")
        }
    }
}
