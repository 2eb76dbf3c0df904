import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The simulator's TLS material: a server certificate chain, its key, and the CA a client
/// must trust to talk to it (docs/apns.md "The connection": every endpoint is overridable; tests point
/// at a local simulator with its own CA).
public struct SimulatorCertificates: Sendable {
    /// The CA certificate clients add to their trust roots, PEM.
    public let caPEM: String
    /// The chain the server presents, leaf first, PEM.
    public let certificateChainPEM: String
    /// The server's private key, PEM. Generated keys live only for the simulator's run.
    let privateKeyPEM: String

    /// A fresh P-256 CA and a leaf for `dnsNames`, 127.0.0.1 and ::1 signed by it, valid
    /// from an hour before `now` (clock skew) for `validity`.
    public static func generate(
        dnsNames: [String] = ["localhost"],
        now: Date = Date(),
        validity: TimeInterval = 365 * 24 * 3600
    ) throws -> SimulatorCertificates {
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(validity)

        let caKey = P256.Signing.PrivateKey()
        let caPublicKey = Certificate.PublicKey(caKey.publicKey)
        let caName = try DistinguishedName {
            OrganizationName("Herald")
            CommonName("Herald APNs Simulator CA")
        }
        let caKeyIdentifier = SubjectKeyIdentifier(hash: caPublicKey)
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: caPublicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                caKeyIdentifier
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )

        let leafKey = P256.Signing.PrivateKey()
        let leafPublicKey = Certificate.PublicKey(leafKey.publicKey)
        let leafName = try DistinguishedName {
            OrganizationName("Herald")
            CommonName(dnsNames.first ?? "localhost")
        }
        var names = dnsNames.map { GeneralName.dnsName($0) }
        names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        names.append(.ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])))
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: leafPublicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: leafPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: caKeyIdentifier.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )

        return SimulatorCertificates(
            caPEM: try ca.serializeAsPEM().pemString,
            certificateChainPEM: try leaf.serializeAsPEM().pemString,
            privateKeyPEM: leafKey.pemRepresentation
        )
    }

    /// Loads PEM files: the chain (leaf first), the key, and optionally the CA to publish
    /// (default: the chain's last certificate). The error names the file, never its content.
    public static func load(
        certificateChainFile: String,
        privateKeyFile: String,
        certificateAuthorityFile: String? = nil
    ) throws(SimulatorError) -> SimulatorCertificates {
        let chainPEM = try readFile(certificateChainFile)
        let keyPEM = try readFile(privateKeyFile)
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: chainPEM)
        } catch {
            throw .certificate("\(certificateChainFile) is not a PEM certificate chain")
        }
        guard let last = documents.last else {
            throw .certificate("\(certificateChainFile) holds no certificate")
        }
        var caPEM = last.pemString
        if let certificateAuthorityFile {
            caPEM = try readFile(certificateAuthorityFile)
        }
        return SimulatorCertificates(caPEM: caPEM, certificateChainPEM: chainPEM, privateKeyPEM: keyPEM)
    }

    /// Reads the material of ``SimulatorConfiguration/CertificateSource``.
    static func make(from source: SimulatorConfiguration.CertificateSource) throws -> SimulatorCertificates {
        switch source {
        case .generated(let dnsNames):
            try generate(dnsNames: dnsNames)
        case .files(let chain, let key, let ca):
            try load(certificateChainFile: chain, privateKeyFile: key, certificateAuthorityFile: ca)
        }
    }

    /// A server TLS configuration presenting this chain: TLS 1.2 or later, ALPN `h2` only
    /// (docs/apns.md "The connection").
    ///
    /// With `clientCAPEM`, clients may (or, when `requireClientCertificates`, must) present a
    /// certificate issued by it (docs/apns.md "Certificates").
    public func makeServerTLSConfiguration(
        clientCAPEM: String? = nil, requireClientCertificates: Bool = false
    ) throws
        -> TLSConfiguration
    {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2"]
        // A test server closes often; do not wait 5 s for a peer's close_notify.
        configuration.shutdownTimeout = .seconds(1)
        if let clientCAPEM {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(clientCAPEM.utf8)))
            configuration.certificateVerification = requireClientCertificates ? .noHostnameVerification : .optionalVerification
        }
        return configuration
    }

    private static func readFile(_ path: String) throws(SimulatorError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .certificate("cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
