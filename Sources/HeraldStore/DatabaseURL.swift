import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://` URL (sslmode as in libpq: disable, prefer, require) turned into a PostgresClient configuration. The password never
/// appears in errors or logs.
public struct DatabaseURL: Sendable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    public var tlsMode: String

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
        database = path.isEmpty ? nil : path
        tlsMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "require"].contains(tlsMode) else {
            throw DatabaseURLError(reason: "sslmode must be disable, prefer or require")
        }
    }

    /// The pool's configuration; `statementTimeout` (milliseconds, 0: none) bounds every
    /// statement, so one slow query cannot hold a connection for ever.
    public func clientConfiguration(maxConnections: Int, statementTimeout: Int = 0) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch tlsMode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maxConnections
        if statementTimeout > 0 {
            configuration.options.additionalStartupParameters.append(("statement_timeout", String(statementTimeout)))
        }
        return configuration
    }
}

/// Why a database URL was refused; never repeats the URL, which may hold a password.
public struct DatabaseURLError: Error, CustomStringConvertible {
    public var reason: String

    public var description: String { "HERALD_DATABASE_URL \(reason)" }
}
