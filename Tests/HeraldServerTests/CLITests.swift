import Foundation
import HeraldStore
import HeraldTestSupport
import Testing

/// Runs the built `herald` binary as a user would.
@Suite struct CLITests {
    struct Run: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let binary =
        ProcessInfo.processInfo.environment["HERALD_BINARY"]
        ?? TestDatabase.repositoryRoot.appendingPathComponent(".build/debug/herald").path

    /// Runs `herald` to its end, waiting on a thread of its own (``onOwnThread``).
    func herald(_ arguments: [String], database: String?, extraEnvironment: [String: String] = [:]) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
        environment["HERALD_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory.path
        environment["HERALD_LOG_LEVEL"] = "error"
        if let database { environment["HERALD_DATABASE_URL"] = database }
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return try await onOwnThread {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    func keyFile() throws -> String {
        // A P-256 private key in PKCS#8 PEM, the shape of Apple's AuthKey_*.p8.
        let pem = """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfXBXa20UqVXHR4aV
            7APNxH83F+I8+KbBxjr1x52fTSihRANCAASM+Jui4/mmHWBBsJ31n0i/TjBaNp07
            zr9GYHPLtpsiA9u0OwW4/adN2WfqvTb+8/NnJZFuDmKitz/xeFIyaTuZ
            -----END PRIVATE KEY-----
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID()).p8").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func helpWorksForEveryCommand() async throws {
        for command in [
            [], ["migrate"], ["serve"], ["apps", "add"], ["apps", "list"], ["keys", "create"], ["keys", "list"],
            ["keys", "revoke"], ["tokens", "prune"], ["templates", "sync"], ["templates", "list"],
            ["campaigns", "create"], ["campaigns", "list"], ["campaigns", "show"], ["campaigns", "schedule"],
            ["campaigns", "pause"], ["campaigns", "resume"], ["campaigns", "cancel"], ["apps", "update"],
            ["apps", "disable"], ["apps", "enable"], ["apps", "credentials", "add"], ["apps", "credentials", "list"],
            ["apps", "credentials", "activate"], ["apps", "credentials", "retire"], ["audit"],
            ["user-data", "export"], ["user-data", "erase"], ["retention", "run"], ["secrets", "rotate"],
            ["webhooks", "add"], ["webhooks", "list"], ["webhooks", "test"], ["webhooks", "remove"],
        ] {
            let run = try await herald(command + ["--help"], database: nil)
            #expect(run.status == 0, "\(command)")
            #expect(run.stdout.contains("USAGE"), "\(command)")
        }
    }

    @Test func migrateIsIdempotentAndTheWholeAdminFlowWorks() async throws {
        try await TestDatabase.withDatabase(migrated: false) { url in
            let first = try await herald(["migrate"], database: url)
            #expect(first.status == 0 && first.stdout.hasPrefix("Applied ") && first.stdout.contains("0002_create_templates.sql"))
            #expect(try await herald(["migrate"], database: url).stdout.contains("Schema is current."))

            let secret = Data(repeating: 1, count: 32).base64EncodedString()
            let add = try await herald(
                [
                    "apps", "add", "--bundle-id", "com.example.cli", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                    "--key-file", try keyFile(), "--environment", "sandbox",
                ],
                database: url, extraEnvironment: ["HERALD_SECRET_KEY": secret])
            #expect(add.status == 0, "\(add.stderr)")
            #expect(try await herald(["apps", "list"], database: url).stdout.contains("com.example.cli"))

            let create = try await herald(["keys", "create", "--role", "app", "--app", "com.example.cli", "--name", "backend"], database: url)
            #expect(create.status == 0)
            let key = try #require(create.stdout.split(separator: "\n").last.map(String.init))
            #expect(key.hasPrefix("hk_") && key.count == 67)
            let principal = try await TestDatabase.withClient(url) { client in
                try await PostgresAPIKeyRepository(client: client, logger: TestDatabase.logger).authenticate(key)
            }
            #expect(principal?.appBundleID == "com.example.cli")

            let list = try await herald(["keys", "list"], database: url)
            #expect(list.stdout.contains(String(key.prefix(11))) && !list.stdout.contains(key))
            #expect(try await herald(["keys", "revoke", "1"], database: url).status == 0)
            #expect(try await herald(["keys", "list"], database: url).stdout.contains("revoked"))

            let prune = try await herald(["tokens", "prune", "--invalidated-before", "30d", "--dry-run"], database: url)
            #expect(prune.status == 0 && prune.stdout.contains("Would delete 0 tokens."))
        }
    }

    @Test func credentialsKeysAndTheAuditLogFromTheCLI() async throws {
        try await TestDatabase.withDatabase { url in
            let secret = try await addApp(url)
            let newKey = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID()).p8").path
            try TestSigningKey.pem().write(toFile: newKey, atomically: true, encoding: .utf8)
            let added = try await herald(
                ["apps", "credentials", "add", "com.example.cli", "--key-id", "KEY2345678", "--key-file", newKey],
                database: url, extraEnvironment: secret)
            #expect(added.status == 0 && added.stdout.contains("as standby"), "\(added.stderr)")
            #expect(try await herald(["apps", "credentials", "activate", "com.example.cli", "2"], database: url).status == 0)
            let list = try await herald(["apps", "credentials", "list", "com.example.cli"], database: url)
            #expect(list.stdout.contains("KEY2345678") && list.stdout.contains("active") && list.stdout.contains("standby"))
            #expect(!list.stdout.contains("PRIVATE"))
            // As the sender notes it when APNs answers 403 for the key (WebhookTests drives that end to end).
            try await TestDatabase.withClient(url) { client in
                _ = try await client.query(
                    "UPDATE app_credentials SET rejected_at = now(), rejection_reason = '403 InvalidProviderToken' WHERE id = 2"
                ).collect()
            }
            let refused = try await herald(["apps", "credentials", "list", "com.example.cli"], database: url)
            #expect(refused.stdout.contains("REFUSED BY APNS") && refused.stdout.contains("403 InvalidProviderToken"))
            #expect(try await herald(["apps", "credentials", "retire", "com.example.cli", "1"], database: url).status == 0)

            // A .p12 certificate with its password in a file; the list shows its subject and expiry.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let p12 = directory.appendingPathComponent("push.p12").path
            let passwordFile = directory.appendingPathComponent("password").path
            let expired = directory.appendingPathComponent("expired.p12").path
            _ = FileManager.default.createFile(
                atPath: p12, contents: Data(try TestClientCertificate.make(uid: "com.example.cli").pkcs12(password: "hunter2")))
            _ = FileManager.default.createFile(
                atPath: expired,
                contents: Data(
                    try TestClientCertificate.make(
                        uid: "com.example.cli", notValidBefore: Date(timeIntervalSinceNow: -90 * 86400),
                        notValidAfter: Date(timeIntervalSinceNow: -86400)
                    ).pkcs12(password: "hunter2")))
            try "hunter2\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let certificate = try await herald(
                ["apps", "credentials", "add", "com.example.cli", "--p12", p12, "--password-file", passwordFile],
                database: url, extraEnvironment: secret)
            #expect(
                certificate.status == 0 && certificate.stdout.contains("certificate UID=com.example.cli")
                    && certificate.stdout.contains("as standby"), "\(certificate.stderr)")
            let withCertificate = try await herald(["apps", "credentials", "list", "com.example.cli"], database: url)
            #expect(withCertificate.stdout.contains("certificate") && withCertificate.stdout.contains("EXPIRES"))
            #expect(!withCertificate.stdout.contains("hunter2"))
            let wrongPassword = directory.appendingPathComponent("wrong").path
            try "hunter3".write(toFile: wrongPassword, atomically: true, encoding: .utf8)

            #expect(try await herald(["apps", "disable", "com.example.cli"], database: url).stdout.contains("Disabled"))
            #expect(try await herald(["apps", "list"], database: url).stdout.contains("disabled"))
            #expect(try await herald(["apps", "enable", "com.example.cli"], database: url).status == 0)
            let update = try await herald(["apps", "update", "com.example.cli", "--environment", "sandbox"], database: url)
            #expect(update.status == 0 && update.stdout.contains("sandbox"), "\(update.stderr)")

            let scoped = try await herald(
                ["keys", "create", "--role", "marketing", "--scope-app", "com.example.cli", "--expires-at", "2030-01-01T00:00:00Z"],
                database: url)
            #expect(scoped.status == 0 && scoped.stdout.contains("for com.example.cli, expires 2030-01-01"), "\(scoped.stderr)")
            #expect(try await herald(["keys", "list"], database: url).stdout.contains("expires 2030-01-01"))

            let audit = try await herald(["audit", "--action", "credential.activate"], database: url)
            #expect(audit.status == 0 && audit.stdout.contains("credential.activate") && audit.stdout.contains("KEY2345678"))
            #expect(audit.stdout.split(separator: "\n").count == 2, "\(audit.stdout)")
            #expect(try await herald(["audit", "--app", "com.example.cli", "--limit", "3"], database: url).stdout.split(separator: "\n").count == 4)

            let bad: [([String], String)] = [
                (["apps", "credentials", "retire", "com.example.cli", "2"], "active"),
                (["apps", "credentials", "activate", "com.example.cli", "1"], "retired"),
                (["apps", "credentials", "activate", "com.example.cli", "99"], "no credential"),
                (["apps", "credentials", "add", "com.example.cli", "--key-id", "KEY3456789", "--key-file", "/nonexistent.p8"], "--key-file"),
                (["apps", "credentials", "add", "com.example.cli", "--key-id", "short", "--key-file", newKey], "--key-id"),
                (["apps", "credentials", "list", "com.example.nope"], "com.example.nope"),
                (["apps", "credentials", "add", "com.example.cli", "--p12", p12, "--password-file", wrongPassword], "--password-file"),
                (["apps", "credentials", "add", "com.example.cli", "--p12", expired, "--password-file", passwordFile], "expired"),
                (["apps", "credentials", "add", "com.example.cli", "--p12", passwordFile, "--password-file", passwordFile], "PKCS#12"),
                (["apps", "credentials", "add", "com.example.cli", "--p12", p12], "--password-file"),
                (["apps", "credentials", "add", "com.example.cli", "--p12", p12, "--key-file", newKey, "--password-file", passwordFile], "not both"),
                (["apps", "credentials", "add", "com.example.cli"], "--p12"),
                (["apps", "update", "com.example.cli", "--apns-endpoint", "http://x"], "--apns-endpoint"),
                (["apps", "update", "com.example.cli"], "--environment"),
                (["apps", "disable", "com.example.nope"], "com.example.nope"),
                (["keys", "create", "--role", "admin", "--scope-app", "com.example.cli"], "--scope-app"),
                (["keys", "create", "--role", "marketing", "--scope-app", "com.nope"], "--scope-app"),
                (["keys", "create", "--role", "admin", "--expires-at", "yesterday"], "--expires-at"),
                (["keys", "create", "--role", "admin", "--expires-at", "2001-01-01T00:00:00Z"], "--expires-at"),
                (["audit", "--since", "nope"], "--since"),
                (["audit", "--limit", "0"], "--limit"),
                (["audit", "--app", "com.nope"], "com.nope"),
                (["user-data", "export", "com.example.cli", "nobody"], "nobody"),
                (["user-data", "erase", "com.example.cli", "nobody"], "nobody"),
                (["user-data", "erase", "com.example.cli", ""], "USER_ID"),
                (["user-data", "export", "com.nope", "user-1"], "com.nope"),
            ]
            for (arguments, mention) in bad {
                let run = try await herald(arguments, database: url, extraEnvironment: secret)
                #expect(run.status != 0, "\(arguments)")
                let lines = run.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage") && !$0.contains("--help") && !$0.isEmpty }
                #expect(lines.count == 1 && run.stderr.contains(mention), "\(arguments): \(run.stderr)")
            }
        }
    }

    @Test func webhookEndpointsFromTheCLI() async throws {
        try await TestDatabase.withDatabase { url in
            let secret = try await addApp(url)
            for (arguments, mention) in [
                (["--app", "com.example.cli", "--url", "ftp://example.com/"], "--url"),
                (["--app", "com.example.cli", "--url", "https://example.com/", "--event", "device.exploded"], "--event"),
                (["--url", "https://example.com/"], "--all-apps"),
                (["--app", "com.example.nope", "--url", "https://example.com/"], "--app"),
            ] {
                let run = try await herald(["webhooks", "add"] + arguments, database: url, extraEnvironment: secret)
                let lines = run.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage") && !$0.contains("--help") && !$0.isEmpty }
                #expect(run.status != 0 && lines.count == 1 && run.stderr.contains(mention), "\(arguments): \(run.stderr)")
            }
            let added = try await herald(
                [
                    "webhooks", "add", "--app", "com.example.cli", "--url", "https://backend.example.com/hook",
                    "--event", "device.invalidated",
                ],
                database: url, extraEnvironment: secret)
            #expect(added.status == 0, "\(added.stderr)")
            let printedSecret = try #require(added.stdout.split(separator: "\n").last.map(String.init))
            #expect(printedSecret.hasPrefix("whsec_"))
            let list = try await herald(["webhooks", "list", "--app", "com.example.cli"], database: url)
            #expect(list.stdout.contains("backend.example.com/hook") && list.stdout.contains("device.invalidated"))
            #expect(!list.stdout.contains(printedSecret))
            #expect(try await herald(["webhooks", "list", "--all-apps"], database: url).stdout.split(separator: "\n").count == 1)
            #expect(try await herald(["webhooks", "test", "--app", "com.example.cli", "1"], database: url).stdout.contains("Queued"))
            #expect(try await herald(["webhooks", "remove", "--all-apps", "1"], database: url).status != 0)
            let removed = try await herald(["webhooks", "remove", "--app", "com.example.cli", "1"], database: url)
            #expect(removed.status == 0 && removed.stdout.contains("1 undelivered"), "\(removed.stdout)")
        }
    }

    @Test func secretsRotateMovesEveryKeyToTheNewSecret() async throws {
        try await TestDatabase.withDatabase { url in
            let old = Data(repeating: 1, count: 32).base64EncodedString()
            let new = Data(repeating: 2, count: 32).base64EncodedString()
            let add = try await herald(
                [
                    "apps", "add", "--bundle-id", "com.example.cli", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                    "--key-file", try keyFile(),
                ],
                database: url, extraEnvironment: ["HERALD_SECRET_KEY": old])
            #expect(add.status == 0, "\(add.stderr)")
            let without = try await herald(["secrets", "rotate"], database: url, extraEnvironment: ["HERALD_SECRET_KEY": new])
            #expect(without.status != 0 && without.stderr.contains("nothing was changed"), "\(without.stderr)")
            #expect(!without.stderr.contains(old) && !without.stderr.contains(new))
            let rotate = try await herald(
                ["secrets", "rotate"], database: url,
                extraEnvironment: ["HERALD_SECRET_KEY": new, "HERALD_PREVIOUS_SECRET_KEYS": old])
            #expect(rotate.status == 0 && rotate.stdout.contains("Re-sealed 1 credentials"), "\(rotate.stderr)")
            let vault = try SigningKeyVault(base64Secret: new)
            let opened = try await TestDatabase.withClient(url) { client in
                try await PostgresAppRepository(client: client, vault: vault, logger: TestDatabase.logger)
                    .activeCredential(appID: 1)?.secret
            }
            guard case .signingKey(let pem)? = opened else {
                Issue.record("no signing key: \(String(describing: opened))")
                return
            }
            #expect(pem.contains("BEGIN PRIVATE KEY"))
            let badPrevious = try await herald(
                ["secrets", "rotate"], database: url,
                extraEnvironment: ["HERALD_SECRET_KEY": new, "HERALD_PREVIOUS_SECRET_KEYS": "nope"])
            #expect(badPrevious.status != 0 && badPrevious.stderr.contains("HERALD_PREVIOUS_SECRET_KEYS"))
        }
    }

    /// Secrets come from files or standard input; one given as an argument (visible in the
    /// process list and shell history) still works but is warned about, never echoed.
    @Test func secretsComeFromFilesAndArgumentsAreWarnedAbout() async throws {
        try await TestDatabase.withDatabase { url in
            let secret = Data(repeating: 3, count: 32).base64EncodedString()
            let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID())").path
            try (secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: secretFile) }
            let fromFile = try await herald(
                [
                    "apps", "add", "--bundle-id", "com.example.file", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                    "--key-file", try keyFile(), "--secret-key-file", secretFile,
                ],
                database: url)
            #expect(fromFile.status == 0 && !fromFile.stderr.contains("warning"), "\(fromFile.stderr)")
            let fromArgument = try await herald(
                [
                    "apps", "add", "--bundle-id", "com.example.arg", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                    "--key-file", try keyFile(), "--secret-key", secret,
                ],
                database: url)
            #expect(fromArgument.status == 0, "\(fromArgument.stderr)")
            #expect(fromArgument.stderr.contains("warning: --secret-key shows in the process list"), "\(fromArgument.stderr)")
            #expect(!fromArgument.stderr.contains(secret) && !fromArgument.stdout.contains(secret))
            let missing = try await herald(
                [
                    "apps", "add", "--bundle-id", "com.example.none", "--team-id", "TEAM123456", "--key-id", "KEY1234567",
                    "--key-file", try keyFile(), "--secret-key-file", "/nonexistent/secret",
                ],
                database: url)
            #expect(missing.status != 0 && missing.stderr.contains("--secret-key-file: cannot read"), "\(missing.stderr)")
            let withPassword = try await herald(
                ["apps", "list", "--database-url", url.replacingOccurrences(of: "herald@", with: "herald:hunter2@")], database: nil)
            #expect(withPassword.stderr.contains("warning: a password in --database-url"), "\(withPassword.stderr)")
            #expect(!withPassword.stderr.contains("hunter2"))
        }
    }

    @Test func badInputExitsNonZeroWithOneLineAndChangesNothing() async throws {
        try await TestDatabase.withDatabase { url in
            let secret = ["HERALD_SECRET_KEY": Data(repeating: 1, count: 32).base64EncodedString()]
            let notAKey = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).p8").path
            try "hello".write(toFile: notAKey, atomically: true, encoding: .utf8)
            let add = ["apps", "add", "--bundle-id", "com.example.cli", "--team-id", "TEAM123456", "--key-id", "KEY1234567"]
            let cases: [([String], [String: String], String)] = [
                (add + ["--key-file", notAKey], secret, "--key-file"),
                (add + ["--key-file", "/nonexistent.p8"], secret, "--key-file"),
                (add + ["--key-file", try keyFile(), "--environment", "staging"], secret, "--environment"),
                (add + ["--key-file", try keyFile()], [:], "HERALD_SECRET_KEY"),
                (add + ["--key-file", try keyFile()], ["HERALD_SECRET_KEY": "short"], "HERALD_SECRET_KEY"),
                (["keys", "create", "--role", "root"], [:], "--role"),
                (["keys", "create", "--role", "app"], [:], "--app"),
                (["keys", "create", "--role", "app", "--app", "com.nope"], [:], "--app"),
                (["keys", "revoke", "999"], [:], "999"),
                (["tokens", "prune"], [:], "--invalidated-before"),
                (["tokens", "prune", "--not-registered-since", "yesterday"], [:], "--not-registered-since"),
            ]
            for (arguments, environment, mention) in cases {
                let run = try await herald(arguments, database: url, extraEnvironment: environment)
                #expect(run.status != 0, "\(arguments)")
                let lines = run.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage") && !$0.contains("--help") && !$0.isEmpty }
                #expect(lines.count == 1, "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains(mention), "\(arguments): \(run.stderr)")
            }
            let counts = try await TestDatabase.withClient(url) { client in
                try await client.query("SELECT (SELECT count(*) FROM apps) + (SELECT count(*) FROM api_keys)").collect()
                    .first!.decode(Int64.self)
            }
            #expect(counts == 0)
        }
    }

    @Test func templatesSyncStoresWhatChangedAndListShowsIt() async throws {
        try await TestDatabase.withDatabase { url in
            let shipped = TestDatabase.repositoryRoot.appendingPathComponent("templates")
            let first = try await herald(["templates", "sync", shipped.path], database: url)
            #expect(first.status == 0, "\(first.stderr)")
            for name in ["cart-reminder", "flash-sale", "welcome"] {
                #expect(first.stdout.contains("\(name): v1 (new)"), "\(first.stdout)")
            }
            let again = try await herald(["templates", "sync", shipped.path], database: url)
            #expect(again.status == 0 && again.stdout.contains("welcome: v1 (unchanged)"), "\(again.stdout)")

            // A copy with one string changed: only that template gets a new version.
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("herald-templates-\(UUID())")
            defer { try? FileManager.default.removeItem(at: copy) }
            try FileManager.default.copyItem(at: shipped, to: copy)
            let strings = copy.appendingPathComponent("welcome/en.lproj/Localizable.strings")
            let text = try String(contentsOf: strings, encoding: .utf8)
            try text.replacingOccurrences(of: "Welcome to %@", with: "Welcome aboard %@").write(to: strings, atomically: true, encoding: .utf8)
            let dry = try await herald(["templates", "sync", copy.path, "--dry-run"], database: url)
            #expect(dry.status == 0 && dry.stdout.contains("welcome: v2 (would be new)") && dry.stdout.contains("Dry run"), "\(dry.stdout)")
            let changed = try await herald(["templates", "sync", copy.path], database: url)
            #expect(changed.stdout.contains("welcome: v2 (new)") && changed.stdout.contains("flash-sale: v1 (unchanged)"), "\(changed.stdout)")

            let list = try await herald(["templates", "list"], database: url)
            #expect(list.status == 0)
            let lines = list.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("NAME") == true && lines.count == 6)
            let welcome = try #require(lines.first { $0.hasPrefix("welcome") })
            #expect(welcome.contains("v2") && welcome.contains("zh-Hant") && welcome.contains("es-419"))
            let versions = try await TestDatabase.withClient(url) { client in
                try await client.query("SELECT count(*) FROM template_versions").collect().first!.decode(Int64.self)
            }
            #expect(versions == 6)
        }
    }

    @Test func templatesSyncOfABrokenFolderPrintsEveryProblemAndStoresNothing() async throws {
        try await TestDatabase.withDatabase { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-broken-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let promo = directory.appendingPathComponent("promo")
            try FileManager.default.createDirectory(at: promo, withIntermediateDirectories: true)
            func write(_ text: String, _ file: String) throws {
                try text.write(to: promo.appendingPathComponent(file), atomically: true, encoding: .utf8)
            }
            try write(#"{"name":"promo","defaultLanguage":"en","body":{"key":"PROMO_BODY","arguments":["vars.percent"]}}"#, "template.json")
            try write(#""PROMO_BODY" = "%@%% off";"# + "\n", "en.strings")
            // An argument the body does not have, on line 2.
            try write("/* German */\n" + #""PROMO_BODY" = "%1$@ %2$@ Rabatt";"# + "\n", "de.strings")
            // Malformed: no semicolon.
            try write(#""PROMO_BODY" = "%@ de réduction""# + "\n", "fr.strings")
            // The key is missing.
            try write(#""OTHER" = "x";"# + "\n", "ja.strings")

            let run = try await herald(["templates", "sync", directory.path], database: url)
            #expect(run.status != 0)
            #expect(run.stdout.isEmpty, "\(run.stdout)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix(directory.path + "/promo/de.strings:2: ") }, "\(run.stderr)")
            let french = try #require(lines.first { $0.hasPrefix(directory.path + "/promo/fr.strings:") }, "\(run.stderr)")
            let lineNumber = french.dropFirst((directory.path + "/promo/fr.strings:").count).prefix { $0 != ":" }
            #expect(Int(lineNumber) != nil, "\(french)")
            #expect(lines.contains { $0.hasPrefix(directory.path + "/promo/ja.strings") }, "\(run.stderr)")
            #expect(lines.last?.hasSuffix("nothing stored.") == true)

            let stored = try await TestDatabase.withClient(url) { client in
                try await client.query("SELECT (SELECT count(*) FROM templates) + (SELECT count(*) FROM template_versions)")
                    .collect().first!.decode(Int64.self)
            }
            #expect(stored == 0)
        }
    }

    @Test func aMissingDatabaseURLNamesTheVariable() async throws {
        let run = try await herald(["migrate"], database: nil)
        #expect(run.status != 0)
        #expect(run.stderr.contains("HERALD_DATABASE_URL"))
    }
}
