import Crypto

/// How an ``APNSSimulator`` listens, whom it trusts and what it gets wrong on purpose.
/// Every value has a default except the provider keys, without which every token is refused.
public struct SimulatorConfiguration: Sendable {
    /// Where the server's TLS certificate comes from.
    public enum CertificateSource: Sendable {
        /// A CA and a leaf for these DNS names (plus 127.0.0.1 and ::1), made at start.
        case generated(dnsNames: [String] = ["localhost"])
        /// PEM files: the server's chain (leaf first), its private key, and the CA clients
        /// should trust (`nil`: the last certificate of the chain).
        case files(certificateChain: String, privateKey: String, certificateAuthority: String?)
    }

    /// The address to bind.
    public var host: String
    /// The port to bind; 0 picks a free one (read it back from ``APNSSimulator/port``).
    public var port: Int
    /// The port of the broadcast channel management API (Apple's listens on 2195 and 2196
    /// apart from pushes); 0 picks a free one, nil serves none.
    public var managementPort: Int?
    /// The TLS certificate.
    public var certificates: CertificateSource
    /// CA certificates (PEM) whose client certificates authenticate a connection instead of a
    /// provider token (docs/apns.md "Certificates"); nil asks no client for a certificate.
    public var clientCertificateAuthorityPEM: String?
    /// Refuse the TLS handshake of a client without such a certificate (as an APNs endpoint
    /// for certificate-only providers would); false still lets token clients in.
    public var requireClientCertificates: Bool
    /// Provider-token verification keys by key ID (the `kid` of the JWT header).
    public var providerKeys: [String: P256.Signing.PublicKey]
    /// Accept any well-formed ES256 token without checking its signature (demos with foreign
    /// keys). Age and team are still checked. Off by default.
    public var acceptAnySignature: Bool
    /// Team IDs whose tokens are accepted (the JWT `iss`); empty accepts any team.
    public var teamIDs: Set<String>
    /// Bundle IDs that may be pushed to (the topic without its push-type suffix); empty
    /// accepts any.
    public var topics: Set<String>
    /// Device tokens (lowercase hex) bound to one bundle ID: a request for another answers
    /// 400 DeviceTokenNotForTopic.
    public var deviceTopics: [String: String]
    /// SETTINGS_MAX_CONCURRENT_STREAMS once a connection has sent a valid provider token.
    public var maxConcurrentStreams: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS until then: docs/apns.md "The connection", APNs allows one
    /// stream until the first request with a valid provider token.
    public var initialStreamsBeforeAuth: Int
    /// Append one JSON line per accepted notification to this file; `nil` (the default)
    /// records nothing, so the simulator stays fast.
    public var recordFile: String?
    /// Scripted failures.
    public var fault: SimulatorFaultScript
    /// docs/apns.md "Provider tokens": when set, a team's new provider token issued sooner than
    /// this after the team's newest one is answered 429 TooManyProviderTokenUpdates (APNs allows
    /// a renewal every 20 minutes). A token already seen stays usable. Nil: not checked.
    public var providerTokenUpdateInterval: Duration?

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        certificates: CertificateSource = .generated(),
        providerKeys: [String: P256.Signing.PublicKey] = [:],
        acceptAnySignature: Bool = false,
        teamIDs: Set<String> = [],
        topics: Set<String> = [],
        deviceTopics: [String: String] = [:],
        maxConcurrentStreams: Int = 1000,
        initialStreamsBeforeAuth: Int = 1,
        recordFile: String? = nil,
        fault: SimulatorFaultScript = SimulatorFaultScript(),
        clientCertificateAuthorityPEM: String? = nil,
        requireClientCertificates: Bool = false
    ) {
        self.clientCertificateAuthorityPEM = clientCertificateAuthorityPEM
        self.requireClientCertificates = requireClientCertificates
        self.host = host
        self.port = port
        self.certificates = certificates
        self.providerKeys = providerKeys
        self.acceptAnySignature = acceptAnySignature
        self.teamIDs = teamIDs
        self.topics = topics
        self.deviceTopics = deviceTopics
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialStreamsBeforeAuth = initialStreamsBeforeAuth
        self.recordFile = recordFile
        self.fault = fault
    }

    /// Refuses values the simulator cannot honour, naming the setting.
    func validate() throws(SimulatorError) {
        guard (0...65_535).contains(port) else {
            throw .invalidConfiguration("port must be within 0...65535")
        }
        if let managementPort, !(0...65_535).contains(managementPort) {
            throw .invalidConfiguration("managementPort must be within 0...65535")
        }
        // RFC 9113 §6.5.2: the setting is a 31-bit value.
        guard (1...Int(Int32.max)).contains(maxConcurrentStreams) else {
            throw .invalidConfiguration("maxConcurrentStreams must be at least 1")
        }
        guard initialStreamsBeforeAuth >= 1 else {
            throw .invalidConfiguration("initialStreamsBeforeAuth must be at least 1")
        }
        if requireClientCertificates, clientCertificateAuthorityPEM == nil {
            throw .invalidConfiguration("requireClientCertificates needs clientCertificateAuthorityPEM")
        }
        try fault.validate()
    }

    /// The stream limit announced in the connection preface.
    var initialMaxConcurrentStreams: Int {
        min(initialStreamsBeforeAuth, maxConcurrentStreams)
    }
}
