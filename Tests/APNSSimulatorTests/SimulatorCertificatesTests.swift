import Foundation
import NIOSSL
import SwiftASN1
import Testing
import X509

@testable import APNSSimulator

@Suite struct SimulatorCertificatesTests {
    @Test func generatesACAAndALeafThatChainsToIt() async throws {
        let certificates = try SimulatorCertificates.generate()
        let ca = try Certificate(pemEncoded: certificates.caPEM)
        let leaf = try Certificate(pemEncoded: certificates.certificateChainPEM)

        #expect(ca.issuer == ca.subject)
        #expect(leaf.issuer == ca.subject)
        #expect(leaf.subject != ca.subject)
        #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(ca.publicKey.isValidSignature(leaf.signature, for: leaf))
        #expect(ca.publicKey.isValidSignature(ca.signature, for: ca))

        let names = try #require(try leaf.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))

        for (hostname, ip) in [("localhost", nil), (nil, "127.0.0.1"), (nil, "::1")] as [(String?, String?)] {
            var verifier = Verifier(rootCertificates: CertificateStore([ca])) {
                RFC5280Policy()
                ServerIdentityPolicy(serverHostname: hostname, serverIP: ip)
            }
            let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore())
            guard case .validCertificate = result else {
                Issue.record("leaf does not validate for \(hostname ?? ip ?? "?"): \(result)")
                continue
            }
        }
    }

    @Test func eachRunMakesADifferentCA() throws {
        let first = try SimulatorCertificates.generate()
        let second = try SimulatorCertificates.generate()
        #expect(first.caPEM != second.caPEM)
    }

    @Test func namesTheRequestedHosts() throws {
        let certificates = try SimulatorCertificates.generate(dnsNames: ["apns.test", "localhost"])
        let leaf = try Certificate(pemEncoded: certificates.certificateChainPEM)
        let names = try #require(try leaf.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("apns.test")))
        #expect(names.contains(.dnsName("localhost")))
    }

    @Test func makesAnH2OnlyTLS12ServerConfiguration() throws {
        let configuration = try SimulatorCertificates.generate().makeServerTLSConfiguration()
        #expect(configuration.applicationProtocols == ["h2"])
        #expect(configuration.minimumTLSVersion == .tlsv12)
        // BoringSSL accepts the pair: the key matches the leaf.
        _ = try NIOSSLContext(configuration: configuration)
    }

    @Test func loadsPEMFilesAndPublishesTheirCA() throws {
        let generated = try SimulatorCertificates.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let chain = directory.appendingPathComponent("chain.pem")
        let key = directory.appendingPathComponent("key.pem")
        let ca = directory.appendingPathComponent("ca.pem")
        try Data(generated.certificateChainPEM.utf8).write(to: chain)
        try Data(generated.privateKeyPEM.utf8).write(to: key)
        try Data(generated.caPEM.utf8).write(to: ca)

        let loaded = try SimulatorCertificates.load(
            certificateChainFile: chain.path,
            privateKeyFile: key.path,
            certificateAuthorityFile: ca.path
        )
        #expect(loaded.caPEM == generated.caPEM)
        _ = try NIOSSLContext(configuration: loaded.makeServerTLSConfiguration())

        // Without a CA file, the chain's last certificate is published.
        let chainOnly = try SimulatorCertificates.load(certificateChainFile: chain.path, privateKeyFile: key.path)
        #expect(try Certificate(pemEncoded: chainOnly.caPEM) == Certificate(pemEncoded: generated.certificateChainPEM))

        #expect(throws: SimulatorError.self) {
            _ = try SimulatorCertificates.load(
                certificateChainFile: directory.appendingPathComponent("missing.pem").path,
                privateKeyFile: key.path
            )
        }
    }
}
