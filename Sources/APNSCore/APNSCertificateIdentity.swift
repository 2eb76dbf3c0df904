import Foundation
import SwiftASN1
import X509

/// What an APNs provider certificate says about itself (docs/apns.md "Certificates"): the
/// bundle ID in its subject's UID, the topics it may push to (Apple's extension
/// 1.2.840.113635.100.6.3.6), the environments it is for, and when it expires. The client
/// shows these to admins; the simulator decides with them as APNs does.
public struct APNSCertificateIdentity: Sendable, Equatable {
    /// The subject's UID: the app's bundle ID on Apple's certificates.
    public var uid: String?
    /// The subject as one line, e.g. `UID=com.example.app, CN=Apple Push Services: com.example.app`.
    public var subject: String
    /// The topics the certificate may push to: the extension's topics, or the UID alone.
    public var topics: [String]
    /// The environments named by Apple's development (…6.3.1) and production (…6.3.2)
    /// extensions; empty when the certificate names neither (then both are tried).
    public var environments: Set<APNSEnvironment>
    public var notValidBefore: Date
    public var notValidAfter: Date

    public static let uidAttribute: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
    public static let topicsExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]
    public static let developmentExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    public static let productionExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]

    public init(
        uid: String?, subject: String, topics: [String], environments: Set<APNSEnvironment> = [], notValidBefore: Date,
        notValidAfter: Date
    ) {
        self.uid = uid
        self.subject = subject
        self.topics = topics
        self.environments = environments
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
    }

    /// Reads a DER certificate; nil when it is not one.
    public init?(derEncoded bytes: [UInt8]) {
        guard let certificate = try? Certificate(derEncoded: bytes) else { return nil }
        self.init(certificate)
    }

    public init(_ certificate: Certificate) {
        var uid: String?
        var parts: [String] = []
        for relativeName in certificate.subject {
            for attribute in relativeName {
                if attribute.type == Self.uidAttribute {
                    let text = String(attribute.value) ?? attribute.value.description
                    uid = text
                    parts.append("UID=\(text)")
                } else {
                    parts.append(attribute.description)
                }
            }
        }
        self.uid = uid
        subject = parts.joined(separator: ", ")
        var topics = certificate.extensions[oid: Self.topicsExtension].map { Self.topics(in: $0.value) } ?? []
        if let uid, !topics.contains(uid) { topics.insert(uid, at: 0) }
        self.topics = topics
        var environments: Set<APNSEnvironment> = []
        if certificate.extensions[oid: Self.developmentExtension] != nil { environments.insert(.sandbox) }
        if certificate.extensions[oid: Self.productionExtension] != nil { environments.insert(.production) }
        self.environments = environments
        notValidBefore = certificate.notValidBefore
        notValidAfter = certificate.notValidAfter
    }

    /// Whether the certificate may push to `bundleID` (the topic without a push-type suffix).
    public func allows(bundleID: String) -> Bool {
        topics.contains(bundleID)
    }

    /// The topics extension: a SEQUENCE of UTF8String topics, each followed by a SEQUENCE of
    /// the kinds of push it allows (`app`, `voip`, `complication`). Anything else is skipped.
    static func topics(in value: ArraySlice<UInt8>) -> [String] {
        guard let root = try? DER.parse(value), case .constructed(let nodes) = root.content else { return [] }
        return nodes.compactMap { node in
            guard node.identifier == .utf8String, case .primitive(let bytes) = node.content else { return nil }
            return String(validating: bytes, as: UTF8.self)
        }
    }

    /// The DER value of a topics extension, for certificates made in tests and demos.
    public static func topicsExtensionValue(_ topics: [String]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for topic in topics {
                try coder.serialize(ASN1UTF8String(topic))
                try coder.appendConstructedNode(identifier: .sequence) { kinds in
                    try kinds.serialize(ASN1UTF8String("app"))
                }
            }
        }
        return serializer.serializedBytes
    }
}
