import ArgumentParser
import Foundation
import HeraldServer
import HeraldStore

struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets", abstract: "Change HERALD_SECRET_KEY, which seals the stored APNs credentials.",
        subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-seal every stored credential with HERALD_SECRET_KEY, in one transaction.",
            discussion: """
                Run every instance with the new HERALD_SECRET_KEY and the old one in \
                HERALD_PREVIOUS_SECRET_KEYS (both open credentials; new ones are sealed with the new \
                secret), then run this with the same two settings, then remove \
                HERALD_PREVIOUS_SECRET_KEYS. A credential that neither opens stops the rotation and \
                changes nothing.
                """)

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let (configuration, logger) = try options.load()
            guard configuration.secretKey != nil else {
                throw CLIError("HERALD_SECRET_KEY is not set; set it to the new secret (and the old one in HERALD_PREVIOUS_SECRET_KEYS)")
            }
            let count = try await Store.with(configuration, logger: logger) { store in
                do {
                    return try await store.apps.resealAll(actor: cliActor)
                } catch let error as SecretKeyMismatch {
                    throw CLIError("\(error); nothing was changed")
                } catch let error as SigningKeyVaultError {
                    throw CLIError("\(error); nothing was changed")
                }
            }
            print(
                "Re-sealed \(count) credentials and webhook secrets with the current HERALD_SECRET_KEY. "
                    + "Once every instance runs with it, remove HERALD_PREVIOUS_SECRET_KEYS.")
        }
    }
}
