import HeraldCore
import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction`, except that Herald's own errors thrown inside (a refused transition,
    /// a validation error, a lost lease) come out as themselves, after the rollback, instead
    /// of wrapped in a `PostgresTransactionError`; database errors stay wrapped.
    func withDomainTransaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withTransaction(logger: logger) { connection in
                try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            if error.rollbackError == nil, let inner = error.closureError,
                inner is CampaignError || inner is ValidationError || inner is CampaignWorkError || inner is SeriesError
                    || inner is CredentialStateError || inner is SigningKeyVaultError
                    || inner is SecretKeyMismatch
            {
                throw inner
            }
            throw error
        }
    }
}
