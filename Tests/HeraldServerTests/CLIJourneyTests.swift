import Foundation
import HeraldTestSupport
import Testing

/// `herald journeys …` as a user runs it, on a fresh database.
extension CLITests {
    @Test func journeysAreSavedVersionedSteeredAndShownAndBadInputExitsWithOneLine() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await addApp(url)
            func run(_ arguments: [String]) async throws -> Run { try await herald(arguments, database: url) }
            let shipped = TestDatabase.repositoryRoot.appendingPathComponent("templates")
            #expect(try await run(["templates", "sync", shipped.path]).status == 0)
            let file = try campaignFile(JourneyTests.cart)
            let created = try await run(["journeys", "create", "com.example.cli", "Cart rescue", "--file", file, "--description", "carts"])
            #expect(created.status == 0 && created.stdout.contains("version 1, draft"), "\(created.stderr)")
            let activated = try await run(["journeys", "steer", "activate", "com.example.cli", "Cart rescue"])
            #expect(activated.status == 0 && activated.stdout.contains("active"), "\(activated.stderr)")
            let shorter = try campaignFile(JourneyTests.cart.replacingOccurrences(of: "\"minutes\": 60", with: "\"minutes\": 30"))
            let updated = try await run(["journeys", "update", "com.example.cli", "Cart rescue", "--file", shorter])
            #expect(updated.status == 0 && updated.stdout.contains("version 2, active"), "\(updated.stderr)")
            let list = try await run(["journeys", "list", "com.example.cli"])
            #expect(list.status == 0 && list.stdout.contains("Cart rescue") && list.stdout.contains("active"), "\(list.stdout)")
            let shown = try await run(["journeys", "show", "com.example.cli", "Cart rescue"])
            #expect(shown.status == 0 && shown.stdout.contains("0 entrants") && shown.stdout.contains("waitFor"), "\(shown.stdout)")
            let graph = try await run(["journeys", "show", "com.example.cli", "Cart rescue", "--version", "1", "--json"])
            #expect(graph.status == 0 && graph.stdout.contains("\"minutes\" : 60"), "\(graph.stdout)")
            let cases: [([String], String)] = [
                (["journeys", "create", "com.example.cli", "Cart rescue", "--file", file], "already has"),
                (["journeys", "create", "com.example.cli", "a/b", "--file", file], "NAME"),
                (
                    [
                        "journeys", "create", "com.example.cli", "Loop", "--file",
                        try campaignFile(
                            #"{"entry": {"event": {"name": "x"}}, "start": "a", "steps": {"a": {"branch": {"opened": true}, "yes": "a", "no": "z"}, "z": {"exit": {}}}}"#
                        ),
                    ],
                    "steps.a"
                ),
                (
                    [
                        "journeys", "create", "com.example.cli", "Bad", "--file",
                        try campaignFile(
                            #"{"entry": {"event": {"name": "x"}}, "start": "a", "steps": {"a": {"send": {"template": "nope"}, "next": "z"}, "z": {"exit": {}}}}"#
                        ),
                    ],
                    "steps.a.send.template"
                ),
                (["journeys", "create", "com.example.cli", "Bad", "--file", try campaignFile("{not json")], "JSON"),
                (["journeys", "create", "com.example.cli", "Bad", "--file", "/nonexistent"], "cannot read"),
                (["journeys", "steer", "activate", "com.example.cli", "Cart rescue"], "not allowed while the journey is active"),
                (["journeys", "steer", "explode", "com.example.cli", "Cart rescue"], "EVENT"),
                (["journeys", "show", "com.example.cli", "Nobody"], "no journey"),
                (["journeys", "list", "com.example.nope"], "no app"),
            ]
            for (arguments, message) in cases {
                let result = try await run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            let archived = try await run(["journeys", "steer", "archive", "com.example.cli", "Cart rescue"])
            #expect(archived.status == 0 && archived.stdout.contains("archived"), "\(archived.stderr)")
        }
    }
}
