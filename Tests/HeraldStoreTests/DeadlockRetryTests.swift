import HeraldTestSupport
import PostgresNIO
import Synchronization
import Testing

@testable import HeraldStore

/// A transaction PostgreSQL picks as a deadlock's victim is run again (`retryingDeadlocks`),
/// so two writers that lock rows in opposite orders both finish.
@Suite struct DeadlockRetryTests {
    /// Which writers hold their first row, and how many attempts each made.
    private final class Progress: Sendable {
        private let state = Mutex<(holding: Set<Int>, attempts: [Int: Int])>(([], [:]))

        /// Counts an attempt; whether it is the writer's first.
        func attempt(_ writer: Int) -> Bool {
            state.withLock {
                $0.attempts[writer, default: 0] += 1
                return $0.attempts[writer] == 1
            }
        }

        func hold(_ writer: Int) { state.withLock { _ = $0.holding.insert(writer) } }
        var bothHold: Bool { state.withLock { $0.holding.count == 2 } }
        var attempts: [Int: Int] { state.withLock { $0.attempts } }
    }

    /// On a Citus cluster the two rows lie on two workers: neither worker sees a cycle, and the
    /// coordinator's distributed deadlock detection cancels one transaction, with the same
    /// SQLSTATE (40P01) as PostgreSQL's own detector.
    @Test(arguments: CitusTestDatabase.engines) func bothWritersOfADeadlockFinish(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            try await f.client.query("CREATE TABLE deadlock_rows (id int PRIMARY KEY, writer int)")
            let (first, second) = onCluster ? try await Self.rowsOnTwoWorkers(f.client) : (1, 2)
            try await f.client.query("INSERT INTO deadlock_rows VALUES (\(first), 0), (\(second), 0)")
            let progress = Progress()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (writer, order) in [(1, [first, second]), (2, [second, first])] {
                    group.addTask {
                        try await PostgresErrors.retryingDeadlocks {
                            let first = progress.attempt(writer)
                            try await f.client.withDomainTransaction(logger: TestDatabase.logger) { connection in
                                try await connection.query(
                                    "UPDATE deadlock_rows SET writer = \(writer) WHERE id = \(order[0])", logger: TestDatabase.logger)
                                if first {
                                    // Each holds its first row before either asks for its second.
                                    progress.hold(writer)
                                    try await waitUntil("both writers to hold a row") { progress.bothHold }
                                }
                                try await connection.query(
                                    "UPDATE deadlock_rows SET writer = \(writer) WHERE id = \(order[1])", logger: TestDatabase.logger)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // One was the victim and ran again; the rows are the last writer's, both of them.
            let attempts = progress.attempts.values.sorted()
            #expect(attempts.first == 1 && attempts.count == 2 && attempts[1] >= 2)
            let writers = try await f.client.query("SELECT DISTINCT writer FROM deadlock_rows").collect().map { try $0.decode(Int.self) }
            #expect(writers.count == 1 && [1, 2].contains(writers.first ?? 0))
        }
    }

    /// Distributes `deadlock_rows` by `id` and returns two ids whose shards lie on different
    /// workers.
    private static func rowsOnTwoWorkers(_ client: PostgresClient) async throws -> (Int, Int) {
        try await client.query("SELECT create_distributed_table('deadlock_rows', 'id')")
        let rows = try await client.query(
            """
            SELECT DISTINCT ON (p.groupid) v.id
            FROM generate_series(1, 64) AS v(id)
            JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('deadlock_rows', v.id)
            ORDER BY p.groupid, v.id
            """
        ).collect().map { try $0.decode(Int.self) }
        try #require(rows.count >= 2, "the cluster has one worker")
        return (rows[0], rows[1])
    }

    @Test func anotherErrorIsNotRunAgain() async throws {
        let attempts = Mutex(0)
        await #expect(throws: CancellationError.self) {
            try await PostgresErrors.retryingDeadlocks {
                attempts.withLock { $0 += 1 }
                throw CancellationError()
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }
}
