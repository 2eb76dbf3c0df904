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

    /// APNs listens on 443, and on 2197 for networks that block 443.
    public static let defaultPort = 443
}
