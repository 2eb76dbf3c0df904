import APNSCore
import Crypto
import Foundation
import SwiftASN1
import X509

/// APNs-style client certificates for tests: a CA of their own, a leaf whose subject UID is the
/// bundle ID and whose Apple topics extension lists its topics, packed as a `.p12` by the
/// `openssl` command (as Keychain Access would export it).
public struct TestClientCertificate: Sendable {
    /// The CA that issued it: a simulator configured with this trusts the certificate.
    public let caPEM: String
    public let certificatePEM: String
    public let keyPEM: String
    public let certificate: Certificate

    public static func make(
        uid: String, topics: [String]? = nil, notValidBefore: Date = Date().addingTimeInterval(-3600),
        notValidAfter: Date = Date().addingTimeInterval(365 * 86400), issuer: TestCertificateAuthority = .init()
    ) throws -> TestClientCertificate {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let subject = DistinguishedName([
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: APNSCertificateIdentity.uidAttribute, utf8String: uid)),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(uid)")),
        ])
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.clientAuth])
        }
        if let topics {
            try extensions.append(
                Certificate.Extension(
                    oid: APNSCertificateIdentity.topicsExtension, critical: false,
                    value: ArraySlice(try APNSCertificateIdentity.topicsExtensionValue(topics))))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: issuer.name, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuer.key))
        return TestClientCertificate(
            caPEM: issuer.pem, certificatePEM: try certificate.serializeAsPEM().pemString, keyPEM: key.pemRepresentation,
            certificate: certificate)
    }

    /// The certificate and key as a `.p12` under `password`, made by `openssl pkcs12 -export`.
    public func pkcs12(password: String) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-p12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem")
        let keyFile = directory.appendingPathComponent("key.pem")
        let output = directory.appendingPathComponent("cert.p12")
        try certificatePEM.write(to: certificateFile, atomically: true, encoding: .utf8)
        try keyPEM.write(to: keyFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "pkcs12", "-export", "-in", certificateFile.path, "-inkey", keyFile.path,
            "-out", output.path, "-passout", "pass:\(password)",
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let bytes = FileManager.default.contents(atPath: output.path) else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TestCertificateError("openssl pkcs12 -export failed: \(message)")
        }
        return Array(bytes)
    }
}

/// A CA for test client certificates.
public struct TestCertificateAuthority: Sendable {
    public let key: P256.Signing.PrivateKey
    public let name: DistinguishedName
    public let pem: String

    public init() {
        key = P256.Signing.PrivateKey()
        name = try! DistinguishedName {
            OrganizationName("Herald tests")
            CommonName("Test APNs client CA")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try! Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: Date().addingTimeInterval(-86400), notValidAfter: Date().addingTimeInterval(2 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try! Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        pem = try! certificate.serializeAsPEM().pemString
    }
}

public struct TestCertificateError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
