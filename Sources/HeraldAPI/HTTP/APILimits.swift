/// The API's bounds on what one client may ask of it (README "Limits").
public struct APILimits: Sendable {
    /// The largest NDJSON body one import reads; what comes after is not read (413).
    public var importMaximumBytes: Int
    /// How long one import may run; what comes after is not read (408).
    public var importMaximumDuration: Duration
    /// Requests one API key may make per second on average (0: unlimited), and the burst above it.
    public var requestsPerSecondPerKey: Int
    public var burstPerKey: Int
    /// Imports one instance runs at once; another is answered 429 with `Retry-After`.
    public var concurrentImports: Int
    /// Whether webhook endpoints may name loopback, private or link-local addresses.
    public var webhookAllowPrivateAddresses: Bool

    public init(
        importMaximumBytes: Int = 1 << 30, importMaximumDuration: Duration = .seconds(3600),
        requestsPerSecondPerKey: Int = 10_000, burstPerKey: Int = 20_000, concurrentImports: Int = 4,
        webhookAllowPrivateAddresses: Bool = false
    ) {
        self.importMaximumBytes = importMaximumBytes
        self.importMaximumDuration = importMaximumDuration
        self.requestsPerSecondPerKey = requestsPerSecondPerKey
        self.burstPerKey = burstPerKey
        self.concurrentImports = concurrentImports
        self.webhookAllowPrivateAddresses = webhookAllowPrivateAddresses
    }
}
