import PostgresNIO

extension PostgresClient {
    /// Runs the pool for as long as `body` runs, then shuts it down: for commands and tests
    /// that use the database briefly, outside a ServiceGroup.
    public func whileRunning<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            // Let the pool's run loop start before the first lease.
            for _ in 0..<8 { await Task.yield() }
            return try await body()
        }
    }
}
