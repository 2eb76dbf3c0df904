import APNSCore
import Crypto
import Foundation
import NIOSSL
import SwiftASN1

/// A TLS client certificate for APNs (docs/apns.md "Certificates"): the chain and private key
/// of a `.p12` file, and what the certificate says about itself.
public struct APNSClientCertificate: Sendable {
    public let chain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey
    public let identity: APNSCertificateIdentity
    /// The first 16 hex digits of the SHA-256 of the leaf certificate (DER), as admins see it.
    public let fingerprint: String

    /// Why a `.p12` cannot be used.
    public enum Problem: Error, Sendable, Equatable {
        /// Not a PKCS#12 file at all.
        case notPKCS12
        /// A PKCS#12 file that this password does not open.
        case wrongPassword
        /// It opened, but its certificate cannot be read, or its key does not fit it.
        case unusable(String)
    }

    /// Opens a `.p12` (PKCS#12) file with its password.
    public init(pkcs12 bytes: [UInt8], password: String) throws(Problem) {
        // A PFX is SEQUENCE { INTEGER 3, ContentInfo, MacData? }: anything else is not a .p12,
        // so a refusal after this check means the password.
        guard Self.looksLikePKCS12(bytes) else { throw .notPKCS12 }
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(password.utf8))
        } catch {
            throw .wrongPassword
        }
        try self.init(chain: bundle.certificateChain, privateKey: bundle.privateKey)
    }

    /// A chain (leaf first) and its key, in PEM.
    public init(chainPEM: String, keyPEM: String) throws(Problem) {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
        } catch {
            throw .unusable("not a PEM certificate chain and private key")
        }
        try self.init(chain: chain, privateKey: key)
    }

    private init(chain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws(Problem) {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes(),
            let identity = APNSCertificateIdentity(derEncoded: der)
        else { throw .unusable("it holds no readable certificate") }
        // A key that does not belong to the certificate fails here, not at the first handshake.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateChain = chain.map { .certificate($0) }
        tls.privateKey = .privateKey(privateKey)
        do {
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw .unusable("its private key does not match its certificate")
        }
        self.chain = chain
        self.privateKey = privateKey
        self.identity = identity
        fingerprint = SHA256.hash(data: der).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    static func looksLikePKCS12(_ bytes: [UInt8]) -> Bool {
        guard let root = try? BER.parse(bytes), root.identifier == .sequence,
            case .constructed(let nodes) = root.content
        else { return false }
        var iterator = nodes.makeIterator()
        guard let version = iterator.next(), let number = try? Int(derEncoded: version) else { return false }
        return number == 3
    }
}
