import Foundation
import HeraldTestSupport
import Testing

/// `herald segments …` and `herald series …` as a user runs them, on a fresh database.
extension CLITests {
    @Test func segmentsAreSavedVersionedCountedAndArchivedAndBadInputExitsWithOneLine() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await addApp(url)
            func run(_ arguments: [String]) async throws -> Run { try await herald(arguments, database: url) }
            let file = try campaignFile(#"{"all": [{"language": "de"}, {"not": {"opened": {"withinDays": 30}}}]}"#)
            let created = try await run(["segments", "create", "com.example.cli", "German, quiet", "--file", file, "--description", "de"])
            #expect(created.status == 0 && created.stdout.contains("version 1"), "\(created.stderr)")
            let wider = try campaignFile(#"{"language": "de"}"#)
            let updated = try await run(["segments", "update", "com.example.cli", "German, quiet", "--file", wider])
            #expect(updated.status == 0 && updated.stdout.contains("version 2"), "\(updated.stderr)")
            let list = try await run(["segments", "list", "com.example.cli"])
            #expect(list.status == 0 && list.stdout.contains("German, quiet") && list.stdout.contains("2"), "\(list.stdout)")
            let shown = try await run(["segments", "show", "com.example.cli", "German, quiet", "--version", "1"])
            #expect(shown.status == 0 && shown.stdout.contains("0 devices match") && shown.stdout.contains("opened"), "\(shown.stdout)")
            let count = try await run(["segments", "count", "com.example.cli", "--file", wider])
            #expect(count.status == 0 && count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(count.stderr)")
            let cases: [([String], String)] = [
                (["segments", "create", "com.example.cli", "German, quiet", "--file", wider], "already has"),
                (["segments", "create", "com.example.cli", "a/b", "--file", wider], "NAME"),
                (
                    ["segments", "create", "com.example.cli", "Bad", "--file", try campaignFile(#"{"attribute": "x", "gt": "y"}"#)],
                    "segment.gt"
                ),
                (["segments", "create", "com.example.cli", "Bad", "--file", try campaignFile("{not json")], "JSON"),
                (["segments", "create", "com.example.cli", "Bad", "--file", "/nonexistent"], "cannot read"),
                (["segments", "show", "com.example.cli", "Nobody"], "no segment"),
                (["segments", "show", "com.example.cli", "German, quiet", "--sample", "51"], "--sample"),
                (["segments", "delete", "com.example.nope", "x"], "no app"),
            ]
            for (arguments, message) in cases {
                let result = try await run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            let deleted = try await run(["segments", "delete", "com.example.cli", "German, quiet"])
            #expect(deleted.status == 0 && deleted.stdout.contains("archived"), "\(deleted.stderr)")
            #expect(!(try await run(["segments", "list", "com.example.cli"]).stdout.contains("German")))
        }
    }

    @Test func seriesAreCreatedShownPausedAndStoppedAndBadInputExitsWithOneLine() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await addApp(url)
            func run(_ arguments: [String]) async throws -> Run { try await herald(arguments, database: url) }
            let shipped = TestDatabase.repositoryRoot.appendingPathComponent("templates")
            #expect(try await run(["templates", "sync", shipped.path]).status == 0)
            let file = try campaignFile(
                #"{"app": "com.example.cli", "name": "Weekly sale", "campaign": {"templateName": "flash-sale", "variables": {"percentOff": 20, "endTime": "Sunday"}}, "schedule": {"frequency": "weekly", "days": ["mon"], "time": "09:30", "timeZone": "Europe/Berlin", "runs": 4}}"#
            )
            let created = try await run(["series", "create", "--file", file])
            #expect(created.status == 0 && created.stderr.contains("next run"), "\(created.stderr)")
            let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let list = try await run(["series", "list", "--app", "com.example.cli"])
            #expect(list.status == 0 && list.stdout.contains("weekly on mon at 09:30 Europe/Berlin"), "\(list.stdout)")
            let shown = try await run(["series", "show", id])
            #expect(shown.status == 0 && shown.stdout.contains("Weekly sale: active"), "\(shown.stdout)")
            #expect(try await run(["series", "pause", id]).stdout.contains("paused"))
            #expect(try await run(["series", "stop", id]).stdout.contains("stopped; no run left"))
            let cases: [([String], String)] = [
                (["series", "resume", id], "cannot resume"),
                (["series", "show", "nope"], "ID"),
                (["series", "show", UUID().uuidString], "no series"),
                (
                    [
                        "series", "create", "--file",
                        try campaignFile(
                            #"{"app": "com.example.cli", "name": "x", "campaign": {"templateName": "flash-sale"}, "schedule": {"frequency": "weekly", "time": "09:30"}}"#
                        ),
                    ],
                    "schedule.days"
                ),
                (
                    [
                        "series", "create", "--file",
                        try campaignFile(
                            #"{"app": "com.example.cli", "name": "x", "campaign": {"templateName": "nope"}, "schedule": {"frequency": "daily", "time": "09:30"}}"#
                        ),
                    ],
                    "campaign.templateName"
                ),
                (
                    [
                        "series", "create", "--file",
                        try campaignFile(#"{"app": "com.example.nope", "name": "x", "campaign": {}, "schedule": {}}"#),
                    ], "no app"
                ),
            ]
            for (arguments, message) in cases {
                let result = try await run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
        }
    }
}
