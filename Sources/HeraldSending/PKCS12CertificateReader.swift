import APNSClient
import APNSCore
import Foundation
import HeraldCore

/// Reads `.p12` client certificates for the API and the CLI: it must open with its password,
/// still be valid, and be allowed to push to the app (docs/admin.md "Certificates").
public struct PKCS12CertificateReader: CertificateReader {
    /// A `.p12` with its chain is a few KiB; anything much bigger is not one.
    static let maximumBytes = 32 * 1024

    public init() {}

    public func read(
        pkcs12: [UInt8], password: String, bundleID: String, now: Date, field: String
    ) throws(ValidationError)
        -> NewCertificate
    {
        let certificateField = field + "certificate"
        guard pkcs12.count <= Self.maximumBytes else {
            throw ValidationError(field: certificateField, reason: "is too large for a .p12 file (at most 32 KiB)")
        }
        let certificate: APNSClientCertificate
        do {
            certificate = try APNSClientCertificate(pkcs12: pkcs12, password: password)
        } catch {
            switch error {
            case .notPKCS12:
                throw ValidationError(field: certificateField, reason: "is not a .p12 (PKCS#12) file")
            case .wrongPassword:
                throw ValidationError(field: field + "password", reason: "does not open this .p12 file")
            case .unusable(let why):
                throw ValidationError(field: certificateField, reason: "cannot be used: \(why)")
            }
        }
        let identity = certificate.identity
        guard identity.notValidAfter > now else {
            throw ValidationError(
                field: certificateField, reason: "expired on \(identity.notValidAfter.formatted(.iso8601)); renew it in your Apple developer account")
        }
        guard identity.allows(bundleID: bundleID) else {
            let names = identity.topics.isEmpty ? "no topic" : identity.topics.joined(separator: ", ")
            throw ValidationError(field: certificateField, reason: "is for \(names), not \(bundleID)")
        }
        return NewCertificate(
            pkcs12: pkcs12, password: password, subject: identity.subject, topics: identity.topics,
            expiresAt: identity.notValidAfter, fingerprint: certificate.fingerprint)
    }
}
