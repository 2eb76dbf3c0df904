import Foundation
import HeraldTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app changed through the CLI while two `herald serve` processes answer for it: both act on
/// the change within seconds, whatever they remembered of the app before.
@Suite struct AppChangeAcrossInstancesTests {
    let cli = CLITests()
    static let bundleID = "com.example.cli"

    @Test func anEnvironmentChangeAndADisableMadeByTheCLIReachEveryInstance() async throws {
        try await TestDatabase.withDatabase { url in
            let secret = try await cli.addApp(url)
            #expect(try await cli.herald(["apps", "update", Self.bundleID, "--environment", "sandbox"], database: url).status == 0)
            let create = try await cli.herald(["keys", "create", "--role", "app", "--app", Self.bundleID, "--name", "backend"], database: url)
            let key = try #require(create.stdout.split(separator: "\n").last.map(String.init))

            // Each remembers apps for ten minutes: only the database's announcement can tell them.
            var instances = [(process: Process, port: Int)]()
            defer { for instance in instances where instance.process.isRunning { instance.process.terminate() } }
            for _ in 0..<2 {
                let port = try ServeTests.freePort()
                let settings = secret.merging(["HERALD_ENGINE_ENABLED": "false", "HERALD_APP_CACHE_SECONDS": "600"]) { $1 }
                instances.append((try ServeTests.serve(database: url, port: port, settings: settings), port))
            }
            for instance in instances { try await Self.waitUntilReady(port: instance.port) }

            var next = 0
            func register(on port: Int) async throws -> String? {
                next += 1
                let token = String(format: "%064x", next)
                let reply = try await Self.request(
                    "PUT", port: port, path: "/v1/apps/\(Self.bundleID)/devices/\(token)", key: key, body: "{}")
                #expect(reply.status == 200 || reply.status == 201, "\(reply.body)")
                return reply.json["environment"] as? String
            }
            // Both have looked the app up (and remember it).
            for instance in instances { #expect(try await register(on: instance.port) == "sandbox") }

            #expect(try await cli.herald(["apps", "update", Self.bundleID, "--environment", "production"], database: url).status == 0)
            for instance in instances {
                try await waitUntil("instance on \(instance.port) to store new devices as production") {
                    try await register(on: instance.port) == "production"
                }
            }

            // Disabled, then enabled again: every instance refuses sends, then takes them again.
            let send = #"{"tokens": ["\#(String(format: "%064x", 1))"], "template": {"name": "welcome"}}"#
            func sendProblem(on port: Int) async throws -> String? {
                let reply = try await Self.request(
                    "POST", port: port, path: "/v1/apps/\(Self.bundleID)/notifications", key: key, body: send)
                return reply.json["type"] as? String
            }
            for instance in instances { #expect(try await sendProblem(on: instance.port)?.hasSuffix("app-disabled") != true) }
            #expect(try await cli.herald(["apps", "disable", Self.bundleID], database: url).status == 0)
            for instance in instances {
                try await waitUntil("instance on \(instance.port) to refuse sends for the disabled app") {
                    try await sendProblem(on: instance.port)?.hasSuffix("app-disabled") == true
                }
            }
            #expect(try await cli.herald(["apps", "enable", Self.bundleID], database: url).status == 0)
            for instance in instances {
                try await waitUntil("instance on \(instance.port) to take sends again") {
                    try await sendProblem(on: instance.port)?.hasSuffix("app-disabled") != true
                }
            }
        }
    }

    static func waitUntilReady(port: Int) async throws {
        // A deadline, not a count of tries: each try may itself wait on a slow machine.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let reply = try? await request("GET", port: port, path: "/readyz", key: nil, body: nil), reply.status == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("herald serve on \(port) did not get ready")
    }

    struct Reply {
        var status: Int
        var body: String
        var json: [String: Any]
    }

    static func request(_ method: String, port: Int, path: String, key: String?, body: String?) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self), json: json)
    }
}
