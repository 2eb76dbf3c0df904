import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://` URL turned into a PostgresClient configuration, with libpq's meanings for
/// its parameters (docs/admin.md "Connecting to PostgreSQL"):
/// - `sslmode`: `disable` (no TLS); `allow` and `prefer` (TLS when the server offers it, not
///   verified); `require` (TLS always, not verified, unless `sslrootcert` is given: then as
///   `verify-ca`); `verify-ca` (the server's chain must lead to a trusted CA); `verify-full`
///   (and its certificate must name the host). `prefer` when absent.
/// - `sslrootcert`: the CA file (PEM) `verify-ca` and `verify-full` trust, or `system` for the
///   system's roots (the default when absent).
/// - `connect_timeout`: seconds to reach the server and finish the handshake (default 10).
/// The password never appears in errors or logs.
public struct DatabaseURL: Sendable {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    public var sslMode: SSLMode
    /// A CA file; nil: the system's roots.
    public var sslRootCert: String?
    public var connectTimeout: Duration

    public init(_ text: String) throws(DatabaseURLError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw DatabaseURLError(reason: "must be a postgres:// URL")
        }
        guard let user = components.user, !user.isEmpty else {
            throw DatabaseURLError(reason: "must name a user (postgres://user@host/db)")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        var mode = SSLMode.prefer
        var rootCert: String?
        var timeout = Duration.seconds(10)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let parsed = SSLMode(rawValue: value) else {
                    throw DatabaseURLError(reason: "sslmode must be disable, allow, prefer, require, verify-ca or verify-full")
                }
                mode = parsed
            case "sslrootcert":
                guard !value.isEmpty else { throw DatabaseURLError(reason: "sslrootcert must name a CA file, or be system") }
                rootCert = value == "system" ? nil : value
            case "connect_timeout":
                guard let seconds = Int(value), (1...300).contains(seconds) else {
                    throw DatabaseURLError(reason: "connect_timeout must be 1 to 300 seconds")
                }
                timeout = .seconds(seconds)
            default:
                throw DatabaseURLError(reason: "takes sslmode, sslrootcert and connect_timeout; \(item.name) is not one of them")
            }
        }
        if let rootCert, !FileManager.default.isReadableFile(atPath: rootCert) {
            throw DatabaseURLError(reason: "sslrootcert: cannot read \(rootCert)")
        }
        // libpq: `require` with a root certificate verifies the chain, as `verify-ca`.
        if mode == .require, rootCert != nil { mode = .verifyCA }
        sslMode = mode
        sslRootCert = rootCert
        connectTimeout = timeout
    }

    /// How long a pooled connection may stay idle before it is closed.
    static let connectionIdleTimeout = Duration.seconds(10)

    /// The pool's configuration; `statementTimeout` (milliseconds, 0: none) bounds every
    /// statement, so one slow query cannot hold a connection for ever.
    public func clientConfiguration(maxConnections: Int, statementTimeout: Int = 0) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch tlsUse {
        case .off: tls = .disable
        case .offered: tls = .prefer(tlsConfiguration())
        case .required: tls = .require(tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maxConnections
        configuration.options.connectTimeout = connectTimeout
        // Every time a connection goes back to the pool idle, the pool starts timers for it (its
        // idle timeout, and a keep-alive query), which the next use cancels. On Linux a cancelled
        // `Task.sleep` keeps its timer until the deadline it was given, so with the defaults
        // (60 s and 30 s) a registry at 10,000 requests/s held about 50 MB of cancelled timers,
        // and SIGTERM shortly after a keep-alive could leave the pool's task never ending (the
        // process did not exit). A connection idle for 10 s is closed instead, which no keep-alive
        // is needed for (BENCHMARKS.md "Idle connections, and memory held by cancelled timers").
        configuration.options.connectionIdleTimeout = Self.connectionIdleTimeout
        configuration.options.keepAliveBehavior = nil
        if statementTimeout > 0 {
            configuration.options.additionalStartupParameters.append(("statement_timeout", String(statementTimeout)))
        }
        return configuration
    }

    /// Whether `sslmode` turns TLS off, uses it when the server offers it, or requires it.
    enum TLSUse {
        case off, offered, required
    }

    var tlsUse: TLSUse {
        switch sslMode {
        case .disable: .off
        case .allow, .prefer: .offered
        case .require, .verifyCA, .verifyFull: .required
        }
    }

    /// The TLS configuration for `sslmode` and `sslrootcert`.
    func tlsConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .allow, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let sslRootCert { configuration.trustRoots = .file(sslRootCert) }
        return configuration
    }

    /// Where the server is, for messages: `host:port`.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a database URL was refused; never repeats the URL, which may hold a password.
public struct DatabaseURLError: Error, CustomStringConvertible {
    public var reason: String

    public var description: String { "HERALD_DATABASE_URL \(reason)" }
}
