import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection opened before a command or `serve` starts, so that a database that cannot
/// be reached is one line naming the server and the reason, within the connect timeout, instead
/// of the pool's retries and a type name after its circuit breaker trips.
public enum DatabaseProbe {
    /// Connects once and closes; throws ``DatabaseUnreachable`` saying why it could not.
    public static func check(_ url: DatabaseURL, logger: Logger) async throws {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch url.tlsUse {
            case .off: tls = .disable
            case .offered: tls = .prefer(try NIOSSLContext(configuration: url.tlsConfiguration()))
            case .required: tls = .require(try NIOSSLContext(configuration: url.tlsConfiguration()))
            }
        } catch {
            throw DatabaseUnreachable(url: url, reason: "sslrootcert cannot be used as a CA file (\(type(of: error)))")
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = TimeAmount(url.connectTimeout)
        let frozen = configuration
        // The whole exchange (connect, TLS, authentication) within the timeout and a margin.
        let connection: PostgresConnection
        do {
            connection = try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask { try await PostgresConnection.connect(configuration: frozen, id: 0, logger: logger) }
                group.addTask {
                    try await Task.sleep(for: url.connectTimeout + .seconds(2))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let connection = first else {
                    throw DatabaseUnreachable(url: url, reason: "timed out after \(url.connectTimeout.components.seconds) s")
                }
                return connection
            }
        } catch let error as DatabaseUnreachable {
            throw error
        } catch {
            throw DatabaseUnreachable(url: url, reason: reason(error, url: url))
        }
        try? await connection.close()
    }

    /// Why a connection failed, in words an operator acts on; never the password or SQL.
    static func reason(_ error: any Error, url: DatabaseURL) -> String {
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                switch state {
                case "28P01": return "the password was refused for user \(url.username)"
                case "28000": return "user \(url.username) may not connect (pg_hba.conf refused it)"
                case "3D000": return "database \(url.database ?? url.username) does not exist"
                case "53300": return "the server has no connection slot left (max_connections)"
                case "57P03": return "the server is starting up or shutting down"
                default: return "the server refused: \(error.serverInfo?[.message] ?? state)"
                }
            case .sslUnsupported:
                return "the server does not offer TLS, and sslmode=\(url.sslMode.rawValue) requires it"
            case .authMechanismRequiresPassword:
                return "the server asks for a password and the URL has none"
            case .unsupportedAuthMechanism:
                return "the server asks for an authentication method Herald does not speak"
            default:
                if let underlying = error.underlying { return reason(underlying, url: url) }
                return "the connection failed (\(error.code))"
            }
        }
        let text = String(describing: error)
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (is PostgreSQL running and listening there?)"
            case ETIMEDOUT: return "timed out"
            case EHOSTUNREACH, ENETUNREACH: return "the host cannot be reached"
            default: break
            }
        }
        if let error = error as? ChannelError, case .connectTimeout(let limit) = error {
            return "timed out after \(limit.nanoseconds / 1_000_000_000) s (connect_timeout)"
        }
        if text.contains("Connection refused") || text.contains("connectionRefused") {
            return "connection refused (is PostgreSQL running and listening there?)"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "the server's certificate is not trusted (sslmode=\(url.sslMode.rawValue); sslrootcert names the CA to trust)"
        }
        if error is NIOSSLExtraError || text.contains("hostname") || text.contains("Hostname") {
            return "the server's certificate does not name \(url.host) (sslmode=verify-full)"
        }
        if error is NIOSSLError { return "the TLS handshake failed (\(text.prefix(120)))" }
        if text.contains("NXDOMAIN") || text.contains("getaddrinfo") || text.contains("No address") || text.contains("unknown host") {
            return "the host name does not resolve"
        }
        return "cannot connect (\(type(of: error)): \(text.prefix(100)))"
    }
}

/// The database could not be reached: one line, the server and the reason.
public struct DatabaseUnreachable: Error, CustomStringConvertible {
    public var description: String

    init(url: DatabaseURL, reason: String) {
        description = "cannot connect to PostgreSQL at \(url.address): \(reason)"
    }
}
