import Foundation
import HeraldTestSupport
import Testing

/// `herald campaigns …` as a user runs it, on a fresh database.
extension CLITests {
    /// Adds the app com.example.cli with a fresh key; the environment that opens its key.
    func addApp(_ url: String) async throws -> [String: String] {
        let secret = ["HERALD_SECRET_KEY": Data(repeating: 1, count: 32).base64EncodedString()]
        let add = try await herald(
            [
                "apps", "add", "--bundle-id", "com.example.cli", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                "--key-file", try keyFile(),
            ],
            database: url, extraEnvironment: secret)
        #expect(add.status == 0, "\(add.stderr)")
        return secret
    }

    func campaignFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("campaign-\(UUID()).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func campaignCount(_ url: String) async throws -> Int64 {
        try await TestDatabase.withClient(url) { client in
            try await client.query("SELECT count(*) FROM campaigns").collect().first!.decode(Int64.self)
        }
    }

    @Test func campaignsAreCreatedListedShownAndSteered() async throws {
        try await TestDatabase.withDatabase { url in
            _ = try await addApp(url)
            let shipped = TestDatabase.repositoryRoot.appendingPathComponent("templates")
            #expect(try await herald(["templates", "sync", shipped.path], database: url).status == 0)

            let file = try campaignFile(
                #"{"app": "com.example.cli", "name": "Spring sale", "templateName": "flash-sale", "variables": {"percentOff": 20, "endTime": "Sunday"}, "audience": {"languages": ["de"]}, "sendAt": "2031-03-01T09:00:00Z"}"#
            )
            let created = try await herald(["campaigns", "create", "--file", file], database: url)
            #expect(created.status == 0, "\(created.stderr)")
            let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(UUID(uuidString: id) != nil, "\(created.stdout)")

            let list = try await herald(["campaigns", "list"], database: url)
            #expect(list.status == 0 && list.stdout.contains(id) && list.stdout.contains("draft"))
            #expect(list.stdout.hasPrefix("ID"))
            let show = try await herald(["campaigns", "show", id], database: url)
            #expect(show.status == 0 && show.stdout.contains("Spring sale") && show.stdout.contains("state:     draft"))
            #expect(show.stdout.contains("[------------------------------] 0% 0/0"))

            let schedule = try await herald(["campaigns", "schedule", id], database: url)
            #expect(schedule.status == 0 && schedule.stdout == "\(id): scheduled\n", "\(schedule.stderr)")
            let shown = try await herald(["campaigns", "show", id], database: url)
            #expect(shown.stdout.contains("flash-sale v1"))
            // A scheduled campaign cannot pause: one line, non-zero, nothing changed.
            let pause = try await herald(["campaigns", "pause", id], database: url)
            #expect(pause.status != 0 && pause.stderr.contains("a scheduled campaign cannot pause"))
            #expect(pause.stderr.split(separator: "\n").count == 1, "\(pause.stderr)")
            let cancel = try await herald(["campaigns", "cancel", id], database: url)
            #expect(cancel.status == 0 && cancel.stdout == "\(id): cancelled\n")
            // Following a finished campaign prints it once and the summary.
            let follow = try await herald(["campaigns", "show", id, "--follow"], database: url)
            #expect(follow.status == 0 && follow.stdout.contains("cancelled") && follow.stdout.contains("audience 0:"))
            #expect(try await herald(["campaigns", "list", "--state", "cancelled"], database: url).stdout.contains(id))
            #expect(!(try await herald(["campaigns", "list", "--state", "draft"], database: url).stdout.contains(id)))

            let scheduledAtOnce = try await herald(["campaigns", "create", "--file", file, "--schedule"], database: url)
            #expect(scheduledAtOnce.status == 0 && scheduledAtOnce.stderr.contains("Spring sale: scheduled"))
        }
    }

    @Test func badCampaignInputExitsNonZeroWithOneLine() async throws {
        try await TestDatabase.withDatabase { url in
            let cases: [([String], String)] = [
                (["campaigns", "create", "--file", "/nonexistent.json"], "cannot read"),
                (["campaigns", "create", "--file", try campaignFile("{")], "not valid JSON"),
                (
                    ["campaigns", "create", "--file", try campaignFile(#"{"app": "com.example.nope", "name": "x", "templateName": "welcome"}"#)],
                    "app: no app has the bundle ID com.example.nope"
                ),
                (["campaigns", "create", "--file", try campaignFile(#"{"name": "x"}"#)], "app: is required"),
                (["campaigns", "show", "not-an-id"], "not a campaign ID"),
                (["campaigns", "cancel", UUID().uuidString], "no campaign"),
                (["campaigns", "list", "--state", "done"], "--state"),
            ]
            for (arguments, message) in cases {
                let run = try await herald(arguments, database: url)
                #expect(run.status != 0, "\(arguments)")
                #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            }
            #expect(try await campaignCount(url) == 0)
        }
    }
}
