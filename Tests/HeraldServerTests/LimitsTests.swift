import APNSCore
import Foundation
import HeraldTestSupport
import Hummingbird
import NIOCore
import Testing

@testable import HeraldServer

#if canImport(Glibc)
import Glibc
#endif

/// Control characters, request rates, import bounds and slow clients: each a clear 4xx or a
/// closed connection, never a 500, and nothing half stored.
@Suite struct LimitsTests {
    static let devicePath = "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(1))"

    @Test(arguments: [
        (#"{"attributes":{"a":"x\u0000y"}}"#, "attributes.a"),
        (#"{"attributes":{"bell":"\u0007"}}"#, "attributes.bell"),
        (#"{"attributes":{"nested":{"list":["ok","\u007f"]}}}"#, "attributes.nested.list[1]"),
        (#"{"userID":"user\u0000"}"#, "userID"),
        (#"{"languages":["en\u0000"]}"#, "languages[0]"),
        (#"{"timeZone":"Europe/Paris\u0000"}"#, "timeZone"),
    ])
    func aControlCharacterInAStoredFieldIsA422NamingIt(body: String, field: String) async throws {
        try await APIHarness.with { h in
            let reply = try await h.request(.put, Self.devicePath, key: h.appKey, body: body)
            #expect(reply.status == .unprocessableContent, "\(reply.body)")
            #expect(reply.json["field"] as? String == field)
            #expect((reply.json["detail"] as? String)?.contains("control character") == true)
            #expect(try await h.deviceCount() == 0)
        }
    }

    @Test func aNulInAnAttributeKeyNamesThatKey() async throws {
        try await APIHarness.with { h in
            let reply = try await h.request(.put, Self.devicePath, key: h.appKey, body: #"{"attributes":{"a\u0000b":1}}"#)
            #expect(reply.status == .unprocessableContent)
            #expect(reply.json["field"] as? String == "attributes.a\u{0}b")
            // Tabs and line breaks are text, not control characters to refuse.
            let text = try await h.request(.put, Self.devicePath, key: h.appKey, body: #"{"attributes":{"note":"a\tb\r\nc"}}"#)
            #expect(text.status == .created, "\(text.body)")
        }
    }

    @Test func campaignsRefuseControlCharactersInEveryTextField() async throws {
        try await APIHarness.with { h in
            let base = #""app": "com.example.herald", "templateName": "welcome""#
            for (body, field) in [
                (#"{\#(base), "name": "Sale\u0000"}"#, "name"),
                (#"{\#(base), "name": "Sale", "notes": "\u0001"}"#, "notes"),
                (#"{\#(base), "name": "Sale", "variables": {"appName": "A\u0000"}}"#, "variables.appName"),
                (#"{\#(base), "name": "Sale", "audience": {"attributes": {"plan": "gold\u0000"}}}"#, "audience.attributes.plan"),
                (#"{\#(base), "name": "Sale", "pushOptions": {"custom": {"k": "\u0000"}}}"#, "pushOptions.custom.k"),
            ] {
                let reply = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: body)
                #expect(reply.status == .unprocessableContent, "\(body): \(reply.body)")
                #expect(reply.json["field"] as? String == field, "\(body): \(reply.body)")
            }
            // A name of 200 code points is fine even when it is fewer characters on screen.
            let decomposed = String(repeating: "e\u{301}", count: 100)
            let ok = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: #"{\#(base), "name": "\#(decomposed)"}"#)
            #expect(ok.status == .created, "\(ok.body)")
            let long = try await h.request(.post, "/v1/campaigns", key: h.marketingKey, body: #"{\#(base), "name": "\#(decomposed)e"}"#)
            #expect(long.status == .unprocessableContent && long.json["field"] as? String == "name")
        }
    }

    @Test func anImportLineWithANulIsRefusedAndTheOthersAreStored() async throws {
        try await APIHarness.with { h in
            let lines = [
                #"{"token":"\#(APIHarness.token(1))","languages":["en"]}"#,
                #"{"token":"\#(APIHarness.token(2))","attributes":{"a":"x\u0000y"}}"#,
                #"{"token":"\#(APIHarness.token(3))","languages":["de"]}"#,
            ]
            let reply = try await h.request(
                .post, "/v1/apps/\(APIHarness.bundleID)/devices/import", key: h.appKey, body: lines.joined(separator: "\n"))
            #expect(reply.status == .ok, "\(reply.body)")
            #expect(reply.json["created"] as? Int == 2)
            let errors = reply.json["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { $0["line"] as? Int } == [2])
            #expect(errors.map { $0["field"] as? String } == ["attributes.a"])
            #expect(try await h.deviceCount() == 2)
        }
    }

    @Test func aLineTheDatabaseRefusesCostsOnlyThatLine() async throws {
        try await APIHarness.with { h in
            // A rule only PostgreSQL knows: the batch fails there, and is retried line by line.
            try await h.store.client.query("ALTER TABLE devices ADD CONSTRAINT test_no_mallory CHECK (user_id IS DISTINCT FROM 'mallory')")
            let lines = (1...20).map { n in
                #"{"token":"\#(APIHarness.token(n))","userID":"\#(n == 11 ? "mallory" : "user-\(n)")"}"#
            }
            let reply = try await h.request(
                .post, "/v1/apps/\(APIHarness.bundleID)/devices/import", key: h.appKey, body: lines.joined(separator: "\n"))
            #expect(reply.status == .ok, "\(reply.body)")
            #expect(reply.json["created"] as? Int == 19)
            let errors = reply.json["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { $0["line"] as? Int } == [11])
            #expect(try await h.deviceCount() == 19)
        }
    }

    @Test func anImportLargerThanItsBoundIsStoppedWith413() async throws {
        try await APIHarness.with(adjust: { $0.importMaximumBytes = 1_000 }) { h in
            let body = (1...100).map { #"{"token":"\#(APIHarness.token($0))"}"# }.joined(separator: "\n")
            let reply = try await h.request(.post, "/v1/apps/\(APIHarness.bundleID)/devices/import", key: h.appKey, body: body)
            #expect(reply.status == .contentTooLarge, "\(reply.body)")
            #expect(reply.problemSlug == "payload-too-large")
            #expect((reply.json["detail"] as? String)?.contains("send the rest in another import") == true)
        }
    }

    @Test func aKeyOverItsRateGets429WithRetryAfterAndOtherKeysGoOn() async throws {
        try await APIHarness.with(adjust: {
            $0.apiRateLimit = 1
            $0.apiRateBurst = 2
            $0.databaseMaxConnections = 4
        }) { h in
            let path = "/v1/apps/\(APIHarness.bundleID)/devices"
            // 20 at once against a burst of 2 and 1 a second: however slow the machine, most are refused.
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<20 { group.addTask { try await h.request(.get, path, key: h.appKey) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            let limited = replies.filter { $0.status == .tooManyRequests }
            #expect(replies.filter { $0.status == .ok }.count >= 2)
            #expect(limited.count >= 10)
            #expect(limited.allSatisfy { $0.problemSlug == "too-many-requests" && (Int($0.headers[.retryAfter] ?? "") ?? 0) >= 1 })
            #expect(try await h.request(.get, path, key: h.adminKey).status == .ok)
        }
    }

    @Test func aBodyTrickledAByteAtATimeIsCutOffAtTheRequestTimeout() async throws {
        try await APIHarness.with(adjust: { $0.httpRequestTimeoutMilliseconds = 1_000 }, testing: .live) { h in
            let port = try #require(h.client.port)
            let socket = try SlowClient(port: port)
            defer { socket.close() }
            try socket.send(
                "PUT \(Self.devicePath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(h.appKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{")
            // A byte every 100 ms keeps the connection active: only the request's own deadline ends it.
            let started = ContinuousClock.now
            var closed = false
            for _ in 0..<100 where !closed {
                try await Task.sleep(for: .milliseconds(100))
                closed = !socket.trySend(" ")
            }
            #expect(closed, "the trickled request was never cut off")
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await h.deviceCount() == 0)
        }
    }

    /// Past `HERALD_IMPORT_CONCURRENCY` imports on one instance, another is answered 429 at
    /// once (each running one holds a connection while its body streams); when one ends, the
    /// next is taken.
    @Test func importsPastTheirBoundAre429UntilOneEnds() async throws {
        try await APIHarness.with(adjust: { $0.importConcurrency = 1 }, testing: .live) { h in
            let port = try #require(h.client.port)
            let importPath = "/v1/apps/\(APIHarness.bundleID)/devices/import"
            let devicePath = "/v1/apps/\(APIHarness.bundleID)/devices/\(APIHarness.token(1))"
            #expect(try await h.request(.put, devicePath, key: h.appKey, body: "{}").status.code < 300)
            // The first import is held inside its write by a row lock, so it is surely running.
            let (locked, lockHeld) = AsyncStream.makeStream(of: Void.self)
            let (release, releasing) = AsyncStream.makeStream(of: Void.self)
            let holder = Task {
                try await h.store.client.withTransaction(logger: h.logs.logger()) { connection in
                    _ = try await connection.query(
                        "SELECT 1 FROM devices WHERE token = \(ByteBuffer(bytes: try DeviceToken(hex: APIHarness.token(1)).bytes)) FOR UPDATE",
                        logger: h.logs.logger()
                    ).collect()
                    lockHeld.yield()
                    var waiting = release.makeAsyncIterator()
                    _ = await waiting.next()
                }
            }
            var lockIterator = locked.makeAsyncIterator()
            _ = await lockIterator.next()
            let running = try SlowClient(port: port)
            defer { running.close() }
            let line = #"{"token": "\#(APIHarness.token(1))", "languages": ["de"]}"#
            try running.send(
                "POST \(importPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(h.appKey)\r\n"
                    + "Content-Type: application/x-ndjson\r\nContent-Length: \(line.utf8.count)\r\n\r\n\(line)")
            try await waitUntil("the first import to wait for the lock") {
                try await h.store.client.query(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO devices%'
                    """
                ).collect().first?.decode(Int64.self) == 1
            }
            let second = try await h.request(.post, importPath, key: h.appKey, body: #"{"token": "\#(APIHarness.token(2))"}"#)
            #expect(second.status == .tooManyRequests && second.problemSlug == "too-many-requests", "\(second.body)")
            #expect(second.headers[.retryAfter] != nil)
            releasing.yield()
            try await holder.value
            #expect(running.readResponseHead(timeout: 10)?.hasPrefix("HTTP/1.1 200") == true)
            try await waitUntil("another import to be taken") {
                try await h.request(.post, importPath, key: h.appKey, body: #"{"token": "\#(APIHarness.token(2))"}"#).status == .ok
            }
            #expect(try await h.deviceCount() == 2)
        }
    }

    @Test func aStatementPastItsTimeoutIsA503WithRetryAfterAndStoresNothing() async throws {
        try await APIHarness.with(adjust: { $0.databaseStatementTimeoutMilliseconds = 300 }) { h in
            // A registration PostgreSQL cannot finish in time: a trigger that sleeps.
            try await h.store.client.query(
                "CREATE FUNCTION test_slow() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$ LANGUAGE plpgsql")
            try await h.store.client.query("CREATE TRIGGER test_slow BEFORE INSERT ON devices FOR EACH ROW EXECUTE FUNCTION test_slow()")
            let reply = try await h.request(.put, Self.devicePath, key: h.appKey, body: #"{"languages":["en"]}"#)
            #expect(reply.status == .serviceUnavailable, "\(reply.body)")
            #expect(reply.problemSlug == "database-unavailable")
            #expect(reply.headers[.retryAfter] == "5")
            try await h.store.client.query("DROP TRIGGER test_slow ON devices")
            #expect(try await h.deviceCount() == 0)
        }
    }

    @Test func aConnectionThatNeverFinishesItsHeaderIsClosedWhileOthersAreServed() async throws {
        try await APIHarness.with(adjust: { $0.httpIdleTimeoutMilliseconds = 500 }, testing: .live) { h in
            let port = try #require(h.client.port)
            let socket = try SlowClient(port: port)
            defer { socket.close() }
            try socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            // Another client is served meanwhile, on a connection of its own.
            let other = try SlowClient(port: port)
            defer { other.close() }
            try other.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(other.readResponseHead(timeout: 10)?.hasPrefix("HTTP/1.1 200") == true)
            let started = ContinuousClock.now
            #expect(socket.readUntilClosed(timeout: 10) == true, "the half-sent request was not closed")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}

/// A raw TCP client that writes what it is told and nothing more.
struct SlowClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw SlowClientError.cannotConnect }
    }

    enum SlowClientError: Error { case cannotConnect, cannotWrite }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw SlowClientError.cannotWrite }
    }

    /// Writes without raising SIGPIPE; false once the server has closed the connection.
    func trySend(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
    }

    /// True once the server closes the connection (a read returns 0 or fails), false after `timeout` seconds.
    func readUntilClosed(timeout: Int) -> Bool {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// The status line of the first answer, or nil if none came within `timeout` seconds.
    func readResponseHead(timeout: Int) -> String? {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            received += buffer[0..<count]
        }
        return String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
