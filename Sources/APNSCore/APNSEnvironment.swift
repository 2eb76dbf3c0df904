/// The APNs environment a device token belongs to (docs/apns.md "Device tokens": a token must be
/// sent to the environment it came from).
public enum APNSEnvironment: String, CaseIterable, Codable, Sendable {
    case sandbox
    case production

    /// The APNs host of this environment (docs/apns.md "The connection").
    public var host: String {
        switch self {
        case .sandbox: "api.sandbox.push.apple.com"
        case .production: "api.push.apple.com"
        }
    }

    /// The host of broadcast channel management (docs/live-activities.md "Broadcast channels").
    public var managementHost: String {
        switch self {
        case .sandbox: "api-manage-broadcast.sandbox.push.apple.com"
        case .production: "api-manage-broadcast.push.apple.com"
        }
    }

    /// Channel management listens on 2195 in the sandbox and 2196 in production.
    public var managementPort: Int {
        switch self {
        case .sandbox: 2195
        case .production: 2196
        }
    }

    /// APNs listens on 443, and on 2197 for networks that block 443.
    public static let defaultPort = 443
}
