import HeraldAPI
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldServer

/// What the API answers for PostgreSQL's own errors (`DatabaseProblems`), from real errors of the
/// test server: a statement past its timeout and a refused query shape, never a 500.
@Suite struct DatabaseProblemsTests {
    /// The error `sql` raises on the test server.
    static func error(of sql: String, setup: String? = nil) async throws -> any Error {
        try await TestDatabase.withDatabase { url in
            try await TestDatabase.withClient(url) { client in
                do {
                    try await client.withConnection { connection in
                        if let setup { _ = try await connection.query(PostgresQuery(unsafeSQL: setup), logger: TestDatabase.logger).collect() }
                        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger).collect()
                    }
                } catch {
                    return error
                }
                Issue.record("\(sql) did not fail")
                return CancellationError()
            }
        }
    }

    @Test func aStatementPastItsTimeoutIs503WithRetryAfter() async throws {
        let error = try await Self.error(of: "SELECT pg_sleep(2)", setup: "SET statement_timeout = 50")
        let problem = try #require(DatabaseProblems.classify(error))
        #expect(problem.status == .serviceUnavailable && problem.slug == "database-unavailable")
        #expect(problem.retryAfter != nil)
    }

    /// SQLSTATE 0A000, which Citus raises for a query shape it cannot distribute (one PostgreSQL
    /// raises it too, here for a lock on an aggregate): 501 naming the reason.
    @Test func aQueryShapeTheDatabaseRefusesIs501NamingTheReason() async throws {
        let error = try await Self.error(of: "SELECT count(*) FROM pg_class FOR UPDATE")
        #expect((error as? PSQLError)?.serverInfo?[.sqlState] == PostgresError.Code.featureNotSupported.raw)
        let problem = try #require(DatabaseProblems.classify(error))
        #expect(problem.status == .notImplemented && problem.slug == "not-supported-on-cluster")
        #expect(problem.detail.contains("FOR UPDATE"), "\(problem.detail)")
    }

    @Test func anErrorOfTheRequestIsLeftToTheAPI() async throws {
        // A unique violation is the request's trouble, answered where it is understood.
        let error = try await Self.error(
            of: "INSERT INTO t VALUES (1), (1)", setup: "CREATE TEMP TABLE t (id integer PRIMARY KEY)")
        #expect(DatabaseProblems.classify(error)?.slug == nil)
    }
}
