import ArgumentParser
import Foundation
import HeraldConsole
import HeraldCore
import HeraldServer
import HeraldStore

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Add, list, disable and enable console users, and reset their passwords.",
        subcommands: [Add.self, List.self, Disable.self, Enable.self, ResetPassword.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a console user. Without --password-stdin a password is generated and printed once, alone on the last line.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The user's email, their sign-in name.") var email: String
        @Option(help: "viewer, marketing or admin.") var role: String
        @Flag(help: "Read the password from the first line of standard input instead of generating one.")
        var passwordStdin = false

        func run() async throws {
            guard let role = ConsoleRole(rawValue: role) else { throw CLIError("--role must be viewer, marketing or admin") }
            let email = try UsersCommand.email(email)
            let (password, generated) = try UsersCommand.password(fromStdin: passwordStdin)
            let hash = try await Passwords.hash(password)
            let (configuration, logger) = try options.load()
            let user = try await Store.with(configuration, logger: logger) { store in
                try await store.users.add(email: email, role: role, passwordHash: hash, actor: cliActor)
            }
            print("Added \(user.role.rawValue) user \(user.email) (ID \(user.id)).")
            if generated {
                print("Their password is shown this once; pass it on now:")
                print(password)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List console users (never their passwords).")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let (configuration, logger) = try options.load()
            let users = try await Store.with(configuration, logger: logger) { store in
                var all = [ConsoleUser]()
                while true {
                    let page = try await store.users.list(after: all.last?.id, limit: 500)
                    all += page
                    if page.count < 500 { return all }
                }
            }
            let rows = users.map { user in
                [
                    String(user.id), user.email, user.role.rawValue, KeysCommand.List.format(user.createdAt),
                    user.lastLoginAt.map(KeysCommand.List.format) ?? "never",
                    user.disabledAt.map { "disabled " + KeysCommand.List.format($0) } ?? "active",
                ]
            }
            print(Table.render(header: ["ID", "EMAIL", "ROLE", "CREATED", "LAST SIGN-IN", "STATE"], rows: rows))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: they cannot sign in, and their sessions end at once.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            try await UsersCommand.setDisabled(true, email: email, options: options)
            print("Disabled \(try UsersCommand.email(email)); their sessions have ended.")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user again.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            try await UsersCommand.setDisabled(false, email: email, options: options)
            print("Enabled \(try UsersCommand.email(email)).")
        }
    }

    static func setDisabled(_ disabled: Bool, email: String, options: CommonOptions) async throws {
        try await change(email: email, options: options) { store, user in
            try await store.users.setDisabled(userID: user.id, disabled: disabled, actor: cliActor)
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Set a new password (generated and printed once, unless --password-stdin); the user's sessions end.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The user's email.") var email: String
        @Flag(help: "Read the password from the first line of standard input instead of generating one.")
        var passwordStdin = false

        func run() async throws {
            let (password, generated) = try UsersCommand.password(fromStdin: passwordStdin)
            let hash = try await Passwords.hash(password)
            try await UsersCommand.change(email: email, options: options) { store, user in
                try await store.users.setPassword(userID: user.id, passwordHash: hash, actor: cliActor)
            }
            print("Reset the password of \(try UsersCommand.email(email)); their sessions have ended.")
            if generated {
                print("The new password is shown this once; pass it on now:")
                print(password)
            }
        }
    }

    static func email(_ text: String) throws -> String {
        do {
            return try ConsoleUserRules.normalizedEmail(text)
        } catch let error as HeraldCore.ValidationError {
            throw CLIError("email: \(error.reason)")
        }
    }

    /// The password from stdin (checked), or a generated one.
    static func password(fromStdin: Bool) throws -> (String, generated: Bool) {
        if fromStdin {
            guard let line = readLine(strippingNewline: true) else { throw CLIError("no password on standard input") }
            if let problem = ConsoleUserRules.check(password: line).first { throw CLIError("password: \(problem.reason)") }
            return (line, false)
        }
        return (Passwords.generate(), true)
    }

    static func change(
        email: String, options: CommonOptions, _ body: @escaping @Sendable (Store, ConsoleUser) async throws -> Bool
    ) async throws {
        let email = try Self.email(email)
        let (configuration, logger) = try options.load()
        try await Store.with(configuration, logger: logger) { store in
            guard let user = try await store.users.find(email: email) else { throw CLIError("no user \(email)") }
            guard try await body(store, user) else { throw CLIError("no user \(email)") }
        }
    }
}
