import Logging
import PostgresNIO

/// What Herald's SQL does so that it also runs on a Citus cluster (docs/scaling.md, "A trial
/// conversion"). On one PostgreSQL each step is harmless: the settings are kept as unused
/// placeholders until the transaction ends.
enum ClusterSafety {
    /// Makes the rest of the caller's transaction reach each node over one connection. On Citus
    /// a transaction that has read a distributed table over several connections per node cannot
    /// then write a reference table (`cannot modify table "apps" because there was a parallel
    /// operation on a distributed table`); a campaign's start counts its audience in `devices`
    /// and then writes `campaigns`. Call it before the transaction's first distributed read.
    static func oneConnectionPerNode(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SET LOCAL citus.multi_shard_modify_mode = 'sequential'", logger: logger)
    }
}
