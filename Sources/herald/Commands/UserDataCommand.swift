import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

struct UserDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-data", abstract: "A user's data requests: export everything Herald holds about them, or erase it.",
        subcommands: [Export.self, Erase.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the user's devices, ledger rows, events, webhook messages and campaign audiences as JSON (tokens as their last 8 hex digits).")

        @OptionGroup var options: CommonOptions
        @OptionGroup var user: UserDataCommand.User

        func run() async throws {
            let (bundleID, userID) = try user.checked()
            let (configuration, logger) = try options.load()
            try await Store.with(configuration, logger: logger) { store in
                let app = try await store.requireApp(bundleID)
                guard try await store.ledger.holdsUser(appID: app.id, userID: userID) else {
                    throw CLIError("Herald holds nothing of user \(userID) for \(bundleID)")
                }
                // Written as it is read, so a user with any number of devices is printed whole.
                try await UserDataExportWriter(ledger: store.ledger).write(appID: app.id, bundleID: app.bundleID, userID: userID) {
                    text in FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Delete the user's devices and anonymise their ledger rows, events, webhook messages and campaign audiences, in one transaction (audited)."
        )

        @OptionGroup var options: CommonOptions
        @OptionGroup var user: UserDataCommand.User

        func run() async throws {
            let (bundleID, userID) = try user.checked()
            let (configuration, logger) = try options.load()
            let erasure = try await Store.with(configuration, logger: logger) { store -> UserErasure in
                let app = try await store.requireApp(bundleID)
                let erasure = try await store.ledger.erase(appID: app.id, userID: userID, actor: cliActor)
                guard !erasure.isEmpty else { throw CLIError("Herald holds nothing of user \(userID) for \(bundleID)") }
                return erasure
            }
            print(
                "Erased: \(erasure.devicesDeleted) devices deleted, \(erasure.notificationsAnonymised) notifications and "
                    + "\(erasure.eventsAnonymised) events anonymised, \(erasure.webhookMessagesRedacted) webhook messages and "
                    + "\(erasure.campaignAudiencesRedacted) campaign audiences redacted.")
        }
    }

    /// Whose data: the app and the user, as both commands take them.
    struct User: ParsableArguments {
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The user ID the app registered devices with.") var userID: String

        func checked() throws -> (bundleID: String, userID: String) {
            guard DeviceRegistration.isValidUserID(userID) else { throw CLIError("USER_ID \(DeviceRegistration.userIDRule)") }
            return (bundleID, userID)
        }
    }
}
