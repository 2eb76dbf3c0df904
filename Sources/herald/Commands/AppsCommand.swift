import APNSCore
import ArgumentParser
import Crypto
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Add, list and change apps, and their APNs credentials.",
        subcommands: [
            Add.self, List.self, Set.self, Update.self, Disable.self, Enable.self, CredentialsCommand.self,
        ])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an app with its token-signing key (sealed with HERALD_SECRET_KEY in the database).")

        @OptionGroup var options: CommonOptions
        @Option(help: "The app's bundle ID, which is its APNs topic.") var bundleID: String
        @Option(help: "Your 10-character Apple Developer team ID.") var teamID: String
        @Option(help: "The 10-character ID of the signing key.") var keyID: String
        @Option(help: "The AuthKey_<KEYID>.p8 file Apple gave you.") var keyFile: String
        @Option(help: "Default environment of new devices: sandbox or production.") var environment = "production"
        @Option(help: "Override the APNs endpoint, e.g. https://127.0.0.1:2197 for the simulator.") var apnsEndpoint: String?
        @Option(help: "Extra CA certificates (PEM) to trust for this app's APNs endpoint.") var apnsCAFile: String?
        @Option(help: "A file holding HERALD_SECRET_KEY ('-': standard input), instead of the environment.")
        var secretKeyFile: String?
        @Option(help: "HERALD_SECRET_KEY itself (deprecated: it shows in the process list and shell history).")
        var secretKey: String?

        func run() async throws {
            if secretKey != nil { CLIWarning.secretOnCommandLine("--secret-key", instead: "--secret-key-file or HERALD_SECRET_KEY") }
            let fromFile = try secretKeyFile.map { try CLISecret.firstLine(file: $0, flag: "--secret-key-file") }
            let (configuration, logger) = try options.load(extra: ["herald.secret_key": fromFile ?? secretKey])
            guard let environment = APNSEnvironment(rawValue: environment) else {
                throw CLIError("--environment must be sandbox or production")
            }
            guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw CLIError("--key-file: cannot read \(keyFile)")
            }
            let caPEM = try apnsCAFile.map { try CLIError.caPEM(file: $0) }
            let newApp: NewApp
            do {
                newApp = try NewApp(
                    bundleID: bundleID, teamID: teamID, keyID: keyID, signingKeyPEM: pem, defaultEnvironment: environment,
                    apnsEndpoint: apnsEndpoint, apnsCAPEM: caPEM)
            } catch {
                throw CLIError(error, flags: ["privateKey": "--key-file"])
            }
            let app = try await Store.with(configuration, logger: logger) { store in
                try await store.apps.add(newApp, actor: cliActor)
            }
            print("Added \(app.bundleID) (team \(app.teamID), key \(app.keyID ?? "-"), \(app.defaultEnvironment.rawValue)).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps (never their keys).")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let (configuration, logger) = try options.load()
            let apps = try await Store.with(configuration, logger: logger) { try await $0.apps.list() }
            let rows = apps.map {
                [
                    $0.bundleID, $0.teamID, $0.keyID ?? "-", $0.defaultEnvironment.rawValue, $0.apnsEndpoint ?? "apple",
                    $0.defaultTimeZone ?? "UTC", $0.quietHours?.description ?? "-",
                    $0.frequencyCaps.isEmpty ? "-" : $0.frequencyCaps.map(\.description).joined(separator: " "),
                    $0.disabledAt == nil ? "enabled" : "disabled",
                ]
            }
            print(
                Table.render(
                    header: [
                        "BUNDLE ID", "TEAM", "KEY", "ENVIRONMENT", "ENDPOINT", "DEFAULT ZONE", "QUIET HOURS", "CAPS", "STATE",
                    ], rows: rows))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an app's default time zone, quiet hours, frequency caps and Live Activity priority allowance.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "The IANA zone of devices that registered none, e.g. Europe/Berlin; 'none' for UTC.")
        var defaultTimeZone: String?
        @Option(help: "When campaigns do not reach a device, in its local time: HH:MM-HH:MM (e.g. 21:00-08:00), or 'none'.")
        var quietHours: String?
        @Option(
            help:
                "At most N campaign notifications per device in any X days or hours: N/Xd or N/Xh (e.g. 3/7d); repeat for several, 'none' for no cap."
        )
        var frequencyCap: [String] = []
        @Option(help: "Priority-10 updates one Live Activity may get per hour (0 to 3600); more go at priority 5.")
        var liveActivityHighPriorityPerHour: Int?

        func run() async throws {
            guard defaultTimeZone != nil || quietHours != nil || !frequencyCap.isEmpty || liveActivityHighPriorityPerHour != nil
            else {
                throw CLIError(
                    "give --default-time-zone, --quiet-hours, --frequency-cap or --live-activity-high-priority-per-hour")
            }
            if let allowance = liveActivityHighPriorityPerHour,
                !(0...LiveActivityRules.maximumHighPriorityPerHour).contains(allowance)
            {
                throw CLIError("--live-activity-high-priority-per-hour: must be 0 to \(LiveActivityRules.maximumHighPriorityPerHour)")
            }
            var caps: [FrequencyCap]?
            if frequencyCap == ["none"] {
                caps = []
            } else if !frequencyCap.isEmpty {
                caps = try CLIError.frequencyCaps(frequencyCap)
            }
            var quiet: QuietHours??
            if let quietHours {
                if quietHours == "none" {
                    quiet = .some(nil)
                } else {
                    switch QuietHours.parse(quietHours) {
                    case .success(let parsed): quiet = .some(parsed)
                    case .failure(let error): throw CLIError("--quiet-hours: \(error.reason)")
                    }
                }
            }
            if let zone = defaultTimeZone, zone != "none", !DeviceRegistration.isKnownTimeZone(zone) {
                throw CLIError("--default-time-zone: \(zone) is not an IANA time zone name (e.g. Europe/Paris)")
            }
            let (configuration, logger) = try options.load()
            let bundleID = self.bundleID
            let zone = defaultTimeZone
            let newQuiet = quiet
            let newCaps = caps
            let allowance = liveActivityHighPriorityPerHour
            let app = try await Store.with(configuration, logger: logger) { store -> App in
                guard let app = try await store.apps.find(bundleID: bundleID) else {
                    throw CLIError("no app has the bundle ID \(bundleID)")
                }
                let settings = AppSettings(
                    defaultTimeZone: zone.map { $0 == "none" ? nil : $0 } ?? app.defaultTimeZone,
                    quietHours: newQuiet ?? app.quietHours, frequencyCaps: newCaps ?? app.frequencyCaps,
                    liveActivityHighPriorityPerHour: allowance ?? app.liveActivityHighPriorityPerHour)
                guard let updated = try await store.apps.updateSettings(appID: app.id, settings: settings, actor: cliActor)
                else { throw CLIError("no app has the bundle ID \(bundleID)") }
                return updated
            }
            let capText = app.frequencyCaps.isEmpty ? "none" : app.frequencyCaps.map(\.description).joined(separator: ", ")
            print(
                "\(app.bundleID): default time zone \(app.defaultTimeZone ?? "UTC"), quiet hours \(app.quietHours?.description ?? "none"), "
                    + "frequency caps \(capText), Live Activity priority-10 updates per hour \(app.liveActivityHighPriorityPerHour)")
        }
    }
}
