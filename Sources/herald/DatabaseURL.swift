import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://` URL turned into a PostgresClient configuration. The password never
/// appears in errors or logs.
struct DatabaseURL: Sendable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?
    var tlsMode: String

    init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw ConfigurationError.invalid("HERALD_DATABASE_URL", "must be a postgres:// URL")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ConfigurationError.invalid("HERALD_DATABASE_URL", "must name a user (postgres://user@host/db)")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        tlsMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "require"].contains(tlsMode) else {
            throw ConfigurationError.invalid("HERALD_DATABASE_URL", "sslmode must be disable, prefer or require")
        }
    }

    func clientConfiguration(maxConnections: Int) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch tlsMode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maxConnections
        return configuration
    }
}
