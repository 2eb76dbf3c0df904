import PostgresNIO

extension PostgresErrors {
    /// PostgreSQL chose this transaction as a deadlock's victim (on a Citus cluster, a
    /// distributed deadlock's too): it rolled back whole.
    static func isDeadlock(_ error: any Error) -> Bool {
        serverError(error)?.serverInfo?[.sqlState] == PostgresError.Code.deadlockDetected.raw
    }

    /// Runs `body`, one transaction, again while PostgreSQL picks it as a deadlock's victim, up to
    /// `attempts` times in all, after a short random pause. Writers that lock several devices' rows can
    /// meet in opposite orders (a batch of registrations written together, an import, an invalidation
    /// batch in device-ID order). Not run again, the victim's record fails: a campaign batch's answers
    /// then wait in the instance's memory until its chunk is claimed again, a send's record fails.
    static func retryingDeadlocks<Result>(attempts: Int = 5, _ body: () async throws -> Result) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch  where isDeadlock(error) && attempt < attempts {
                DatabaseMetrics.deadlockRetried()
                // A pause first, longer each time: run again at once, the victim can take a row
                // back before the survivor, which waited on it, does, and meet it again.
                try await Task.sleep(for: .milliseconds(Int.random(in: 20...60) * attempt))
                attempt += 1
            }
        }
    }
}
