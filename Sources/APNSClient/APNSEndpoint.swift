import APNSCore
import Foundation

/// Where APNs (or a simulator) listens. Every endpoint is overridable (docs/apns.md, "The connection").
public struct APNSEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = APNSEnvironment.defaultPort) {
        self.host = host
        self.port = port
    }

    public init(environment: APNSEnvironment) {
        self.init(host: environment.host)
    }

    /// Apple's channel management endpoint of `environment`.
    public static func management(_ environment: APNSEnvironment) -> APNSEndpoint {
        APNSEndpoint(host: environment.managementHost, port: environment.managementPort)
    }

    /// `https://host[:port]`, as `herald apps add --apns-endpoint` takes it.
    public init?(url: String) {
        guard let components = URLComponents(string: url), components.scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.init(host: host, port: components.port ?? APNSEnvironment.defaultPort)
    }

    public var description: String { "https://\(host):\(port)" }
}
