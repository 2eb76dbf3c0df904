import Foundation
import HeraldTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `herald serve` as a process: migrates before it listens, answers, and stops cleanly on SIGTERM.
@Suite struct ServeTests {
    @Test func migratesServesAndShutsDownGracefullyOnSIGTERM() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            let port = try Self.freePort()
            let stderr = Pipe()
            // An engine polling every 5 ms would hit the tables while they are being created,
            // unless it waits for the migrations.
            let process = try Self.serve(database: url, port: port, settings: ["HERALD_ENGINE_POLL_MS": "5"], stderr: stderr)
            defer { if process.isRunning { process.terminate() } }

            // Up to a minute: it migrates a fresh database first, and CI runs this beside hundreds of
            // other tests on two cores (ten seconds once ran out there).
            var ready: String?
            let deadline = ContinuousClock.now + .seconds(60)
            while ready == nil, ContinuousClock.now < deadline {
                if let (data, _) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/readyz")!) {
                    ready = String(decoding: data, as: UTF8.self)
                } else {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            try #require(ready?.contains("ready") == true)

            kill(process.processIdentifier, SIGTERM)
            try await waitUntil("serve to stop after SIGTERM", limit: .seconds(30)) { !process.isRunning }
            try #require(!process.isRunning)
            #expect(process.terminationStatus == 0)
            let logged = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(!logged.contains("scheduler:") && !logged.contains("claiming a chunk:"), "\(logged)")
        }
    }

    /// SIGTERM while PostgreSQL is gone: the engine, the webhook dispatcher and the listeners
    /// stop waiting for a connection the pool cannot make, and the process ends within seconds.
    /// "Gone" here: every connection to the database cut and new ones refused.
    @Test func sigtermStopsServeWhenTheDatabaseHasGoneAway() async throws {
        try await TestDatabase.withDatabase { url in
            let port = try Self.freePort()
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID()).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            let process = try Self.serve(
                database: url, port: port,
                settings: [
                    "HERALD_ENGINE_POLL_MS": "50", "HERALD_SECRET_KEY": Data(repeating: 5, count: 32).base64EncodedString(),
                    "HERALD_LOG_LEVEL": "debug",
                ], stderrFile: log)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await AppChangeAcrossInstancesTests.waitUntilReady(port: port)
            let name = try #require(URLComponents(string: url)?.path.dropFirst().description)
            try await TestDatabase.withClient(TestDatabase.serverURL) { admin in
                _ = try await admin.query("ALTER DATABASE \(unescaped: name) ALLOW_CONNECTIONS false").collect()
                _ = try await admin.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name)"
                ).collect()
            }
            try await Task.sleep(for: .seconds(1))
            kill(process.processIdentifier, SIGTERM)
            try await waitUntil("serve to stop after SIGTERM", limit: .seconds(15)) { !process.isRunning }
            if process.isRunning {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                let services = text.split(separator: "\n").filter { $0.contains("Service finished") || $0.contains("Triggering") }
                Issue.record("still running: \(services.suffix(6).joined(separator: "\n"))")
            }
        }
    }

    /// The connection bound, on the real server (the router test client does not apply it).
    @Test func pastTheConnectionBoundANewClientWaitsUntilOneCloses() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            let port = try Self.freePort()
            let process = try Self.serve(
                database: url, port: port, settings: ["HERALD_ENGINE_ENABLED": "false", "HERALD_HTTP_MAX_CONNECTIONS": "2"])
            defer { if process.isRunning { process.terminate() } }

            // Ready: one connection at a time, each closed before the next. Up to a minute, as above:
            // it migrates a fresh database first.
            var ready = false
            let deadline = ContinuousClock.now + .seconds(60)
            while !ready, ContinuousClock.now < deadline {
                if let probe = try? SlowClient(port: port) {
                    if (try? probe.send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) != nil {
                        ready = probe.readResponseHead(timeout: 5)?.hasPrefix("HTTP/1.1 200") == true
                    }
                    probe.close()
                }
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            try #require(ready)
            try await Task.sleep(for: .milliseconds(300))
            // Two connections the server holds open (a request half sent on each).
            let first = try SlowClient(port: port)
            let second = try SlowClient(port: port)
            defer { second.close() }
            try first.send("GET /healthz HTTP/1.1\r\n")
            try second.send("GET /healthz HTTP/1.1\r\n")
            try await Task.sleep(for: .milliseconds(300))
            let third = try SlowClient(port: port)
            defer { third.close() }
            try third.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(third.readResponseHead(timeout: 2) == nil, "a third connection was served past a bound of two")
            first.close()
            #expect(third.readResponseHead(timeout: 10)?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    /// A loopback port the kernel just handed out (bound to port 0, then released): unlike a
    /// random pick, never one another process holds.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `herald serve` on `port` over `database` (migrating it), with these settings on top of a
    /// clean environment; its standard error goes to `stderr` when given.
    static func serve(
        database: String, port: Int, settings: [String: String], stderr: Pipe? = nil, stderrFile: URL? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLITests.binary)
        process.arguments = ["serve", "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
        environment["HERALD_DATABASE_URL"] = database
        environment["HERALD_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory.path
        environment["HERALD_LOG_LEVEL"] = "warning"
        environment.merge(settings) { $1 }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        if let stderr {
            process.standardError = stderr
        } else if let stderrFile {
            process.standardError = try FileHandle(forWritingTo: stderrFile)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }
}
