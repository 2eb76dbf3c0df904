import Foundation
import HeraldStore
import HeraldTestSupport
import Logging
import PostgresNIO
import Testing

/// Reaching PostgreSQL as an operator would: `sslmode` with libpq's meanings against a cluster
/// that offers TLS with a self-signed certificate (as Debian's does), and a database that
/// cannot be reached named in one line with the reason, within the connect timeout.
@Suite struct DatabaseConnectionTests {
    /// The test cluster's certificate (ops/test sets it; the cluster is made by ops/postgres).
    static let certificate = ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_CERT"]
    static let logger = Logger(label: "test")

    /// The test database's URL with `query` instead of its own parameters, at `host`.
    static func url(_ query: String, host: String = "127.0.0.1") -> String {
        var components = URLComponents(string: TestDatabase.serverURL)!
        components.host = host
        components.query = query
        return components.string!
    }

    static func probe(_ text: String) async -> String? {
        do {
            try await DatabaseProbe.check(try DatabaseURL(text), logger: logger)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(.enabled(if: certificate != nil, "ops/test gives the cluster's certificate"))
    func sslModesMeanWhatTheyMeanToLibpq() async throws {
        let ca = try #require(Self.certificate)
        // require, prefer: encrypted, not verified (a self-signed certificate is fine).
        #expect(await Self.probe(Self.url("sslmode=require")) == nil)
        #expect(await Self.probe(Self.url("sslmode=prefer")) == nil)
        let client = PostgresClient(
            configuration: try DatabaseURL(Self.url("sslmode=require")).clientConfiguration(maxConnections: 1),
            backgroundLogger: Self.logger)
        let encrypted = try await client.whileRunning {
            try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").collect().first?.decode(Bool.self)
        }
        #expect(encrypted == true)
        // verify-full against the system's roots: refused, saying why.
        let untrusted = try #require(await Self.probe(Self.url("sslmode=verify-full")))
        #expect(untrusted.hasPrefix("cannot connect to PostgreSQL at 127.0.0.1:") && untrusted.contains("not trusted"), "\(untrusted)")
        #expect(!untrusted.contains("\n"))
        // With the CA named: verify-ca passes; verify-full passes for the name the certificate
        // carries and refuses another; require with a CA verifies the chain, as in libpq.
        #expect(await Self.probe(Self.url("sslmode=verify-ca&sslrootcert=\(ca)")) == nil)
        #expect(await Self.probe(Self.url("sslmode=require&sslrootcert=\(ca)")) == nil)
        #expect(await Self.probe(Self.url("sslmode=verify-full&sslrootcert=\(ca)", host: "localhost")) == nil)
        let otherName = try #require(await Self.probe(Self.url("sslmode=verify-full&sslrootcert=\(ca)")))
        #expect(otherName.contains("does not name 127.0.0.1"), "\(otherName)")
    }

    /// A connection left idle is closed after `connectionIdleTimeout` (10 s), so no idle
    /// connection needs a keep-alive query, and the next query opens one again.
    @Test func idleConnectionsAreClosed() async throws {
        var configuration = try DatabaseURL(TestDatabase.serverURL).clientConfiguration(maxConnections: 4)
        #expect(configuration.options.keepAliveBehavior == nil)
        let name = "herald-idle-\(UInt32.random(in: 0...UInt32.max))"
        configuration.options.additionalStartupParameters.append(("application_name", name))
        let client = PostgresClient(configuration: configuration, backgroundLogger: Self.logger)
        try await TestDatabase.withClient(TestDatabase.serverURL) { observer in
            @Sendable func open() async throws -> Int {
                try await observer.query("SELECT count(*)::int FROM pg_stat_activity WHERE application_name = \(name)")
                    .collect().first?.decode(Int.self) ?? -1
            }
            try await client.whileRunning {
                // Four at once: four connections.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { try await client.query("SELECT pg_sleep(0.3)").collect() } }
                    try await group.waitForAll()
                }
                #expect(try await open() == 4)
                try await waitUntil("the idle connections to close", limit: .seconds(25)) { (try? await open()) == 0 }
                #expect(try await client.query("SELECT 1").collect().count == 1)
                #expect(try await open() == 1)
            }
        }
    }

    @Test func badURLParametersAreNamed() {
        for (query, words) in [
            ("sslmode=verify", "sslmode must be"), ("sslmode=Require", "sslmode must be"),
            ("sslrootcert=/nonexistent/ca.pem&sslmode=verify-ca", "cannot read /nonexistent/ca.pem"),
            ("connect_timeout=0", "connect_timeout"), ("connect_timeout=abc", "connect_timeout"),
            ("application_name=x", "application_name is not one of them"),
        ] {
            #expect(throws: DatabaseURLError.self, "\(query)") { try DatabaseURL(Self.url(query)) }
            #expect((try? DatabaseURL(Self.url(query))) == nil)
            do {
                _ = try DatabaseURL(Self.url(query))
            } catch {
                #expect(error.description.contains(words), "\(query): \(error)")
            }
        }
    }

    /// Every command says in one line which server failed and why, within the connect timeout.
    @Test func anUnreachableDatabaseIsOneLineNamingTheServerAndTheReason() async throws {
        let cli = CLITests()
        // Nothing listens: refused at once.
        let closed = try ServeTests.freePort()
        let refused = try await cli.herald(["campaigns", "list"], database: "postgres://herald@127.0.0.1:\(closed)/herald?sslmode=disable")
        #expect(refused.status != 0)
        let line = refused.stderr.split(separator: "\n").filter { !$0.isEmpty }
        #expect(
            line.count == 1 && line.first?.contains("cannot connect to PostgreSQL at 127.0.0.1:\(closed): connection refused") == true,
            "\(refused.stderr)")
        // A peer that accepts and never answers: timed out after connect_timeout, not later.
        let silent = try SilentPeer()
        let started = ContinuousClock.now
        let timedOut = try await cli.herald(
            ["campaigns", "list"], database: "postgres://herald@127.0.0.1:\(silent.port)/herald?sslmode=disable&connect_timeout=1")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(
            timedOut.status != 0 && timedOut.stderr.contains("127.0.0.1:\(silent.port)") && timedOut.stderr.contains("timed out"),
            "\(timedOut.stderr)")
        // A database that does not exist, on a server that runs.
        var components = URLComponents(string: TestDatabase.serverURL)!
        components.path = "/no_such_database"
        let missing = try await cli.herald(["campaigns", "list"], database: components.string!)
        #expect(missing.status != 0 && missing.stderr.contains("database no_such_database does not exist"), "\(missing.stderr)")
        // serve too, before it listens.
        let port = try ServeTests.freePort()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let serve = try ServeTests.serve(
            database: "postgres://herald@127.0.0.1:\(closed)/herald?sslmode=disable", port: port, settings: [:], stderrFile: log)
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try await waitUntil("serve to stop", limit: .seconds(30)) { !serve.isRunning }
        try #require(!serve.isRunning)
        #expect(serve.terminationStatus != 0)
        let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(logged.contains("cannot connect to PostgreSQL at 127.0.0.1:\(closed): connection refused"), "\(logged)")
    }
}
