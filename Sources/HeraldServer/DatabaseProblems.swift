import HeraldAPI
import HeraldCore
import HeraldStore
import PostgresNIO

/// What the API answers when PostgreSQL, not the request, is the trouble: a statement past
/// `HERALD_DATABASE_STATEMENT_TIMEOUT_MS` or a database that cannot be reached is 503 with
/// `Retry-After`, never 500. Lives here because only the composition root knows both sides.
enum DatabaseProblems {
    @Sendable static func classify(_ error: any Error) -> Problem? {
        if error is SecretKeyMismatch || error is SigningKeyVaultError || error is CredentialUnopenable {
            // This instance's configuration, not the request: the server log names the rows.
            return .notReady("this instance's HERALD_SECRET_KEY does not open the stored secrets; an admin must fix its configuration")
        }
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState]
            if state == PostgresError.Code.queryCanceled.raw {
                return .databaseUnavailable("the database took longer than the statement timeout; try again later or narrow the request")
            }
            // Class 08 (connection exceptions), 53 (insufficient resources), 57P (operator intervention).
            if let state, state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") {
                return .databaseUnavailable("the database is unavailable; try again later")
            }
            // A Citus worker the statement needs is down: Citus reports a connection lost
            // inside a transaction as an internal error (XX000) that names it.
            if let message = error.serverInfo?[.message], PostgresErrors.citusWorkerUnreachable(message) {
                return .databaseUnavailable("a database node this request needs is unavailable; try again later")
            }
            // Citus's refusal of a query shape (feature_not_supported): PostgreSQL alone raises
            // it for none of Herald's statements. Its message names the construct, no data.
            if state == PostgresError.Code.featureNotSupported.raw, let message = error.serverInfo?[.message] {
                return .notSupportedOnCluster("the database cluster cannot run this query yet: \(message)")
            }
            return nil
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .queryCancelled:
            return .databaseUnavailable("the database is unavailable; try again later")
        default:
            return nil
        }
    }
}
