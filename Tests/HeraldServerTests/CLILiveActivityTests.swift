import Foundation
import HeraldTestSupport
import PostgresNIO
import Testing

/// `herald live-activities …` as a user runs it, on a fresh database.
extension CLITests {
    @Test func liveActivitiesAreListedShownUpdatedAndEndedAndBadInputExitsWithOneLine() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await addApp(url)
            // A device and the update token it registered under order-8812.
            _ = try await TestDatabase.withClient(url) { client in
                try await client.query(
                    """
                    WITH app AS (SELECT id FROM apps WHERE bundle_id = 'com.example.cli'),
                         device AS (INSERT INTO devices (app_id, token, environment, part) SELECT id, '\\xa1b2c3d4e5f60718'::bytea, 'production', herald_part(get_byte(sha256('\\xa1b2c3d4e5f60718'::bytea), 0)) FROM app RETURNING app_id, id, part),
                         activity AS (INSERT INTO live_activities (app_id, activity_id) SELECT app_id, 'order-8812' FROM device RETURNING app_id)
                    INSERT INTO live_activity_tokens (app_id, activity_id, device_id, part, token)
                    SELECT device.app_id, 'order-8812', device.id, device.part, '\\x0bda0bda0bda0bda'::bytea FROM device, activity
                    """)
            }
            let update = try await herald(
                ["live-activities", "update", "com.example.cli", "order-8812", "--content-state", #"{"stopsAway": 3}"#, "--priority", "10"],
                database: url)
            #expect(update.status == 0 && update.stdout.contains("queued") && update.stdout.contains("priority 10"), "\(update.stderr)")
            let list = try await herald(["live-activities", "list", "com.example.cli"], database: url)
            #expect(list.status == 0 && list.stdout.contains("order-8812") && list.stdout.contains("active"), "\(list.stdout)")
            let cases: [([String], String)] = [
                (["live-activities", "update", "com.example.cli", "order-8812", "--content-state", "[1]"], "--content-state"),
                (["live-activities", "update", "com.example.cli", "order-8812", "--content-state", "{}", "--priority", "7"], "--priority"),
                (["live-activities", "update", "com.example.cli", "order-8812", "--content-state", "{}", "--alert-title", "Hi"], "--alert-body"),
                (
                    ["live-activities", "update", "com.example.cli", "order-8812", "--content-state", "{}", "--stale-date", "2001-01-01T00:00:00Z"],
                    "--stale-date"
                ),
                (["live-activities", "update", "com.example.cli", "no-such", "--content-state", "{}"], "no update token"),
                (["live-activities", "update", "com.example.nope", "order-8812", "--content-state", "{}"], "no app"),
                (["live-activities", "update", "com.example.cli", String(repeating: "x", count: 300), "--content-state", "{}"], "ACTIVITY_ID"),
                (["live-activities", "list", "com.example.cli", "--state", "done"], "--state"),
                (["live-activities", "show", "com.example.cli", "no-such"], "no activity"),
            ]
            for (arguments, message) in cases {
                let run = try await herald(arguments, database: url)
                #expect(run.status != 0, "\(arguments)")
                #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            }
            let end = try await herald(
                [
                    "live-activities", "end", "com.example.cli", "order-8812", "--content-state", #"{"stopsAway": 0}"#,
                    "--dismissal-date", "2026-01-01T00:00:00Z",
                ], database: url)
            #expect(end.status == 0 && end.stdout.contains("priority 10"), "\(end.stderr)")
            let late = try await herald(["live-activities", "update", "com.example.cli", "order-8812", "--content-state", "{}"], database: url)
            #expect(late.status != 0 && late.stderr.contains("has ended"))
            let show = try await herald(["live-activities", "show", "com.example.cli", "order-8812"], database: url)
            #expect(show.status == 0 && show.stdout.contains("ended") && show.stdout.contains("end"), "\(show.stdout)")
            let updates = try await TestDatabase.withClient(url) { client in
                try await client.query("SELECT count(*) FROM live_activity_updates").collect().first!.decode(Int64.self)
            }
            #expect(updates == 2)
        }
    }
}
