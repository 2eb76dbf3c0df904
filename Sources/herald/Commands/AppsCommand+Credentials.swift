import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldSending
import HeraldServer
import HeraldStore

extension AppsCommand {
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change how an app reaches APNs: its default environment, endpoint override and extra CA.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "Default environment of new devices: sandbox or production.") var environment: String?
        @Option(help: "Override the APNs endpoint (an https URL), or 'none' for Apple's.") var apnsEndpoint: String?
        @Option(help: "Extra CA certificates (PEM) to trust for the endpoint override, or 'none'.") var apnsCAFile: String?
        @Option(help: "Override the broadcast channel management endpoint (an https URL), or 'none' for Apple's.")
        var apnsManagementEndpoint: String?

        func run() async throws {
            var changes = AppChanges()
            if let environment {
                guard let parsed = APNSEnvironment(rawValue: environment) else {
                    throw CLIError("--environment must be sandbox or production")
                }
                changes.defaultEnvironment = parsed
            }
            if let apnsEndpoint {
                if apnsEndpoint == "none" {
                    changes.apnsEndpoint = .some(nil)
                } else {
                    if let problem = NewApp.endpointProblem(apnsEndpoint) { throw CLIError(problem) }
                    changes.apnsEndpoint = .some(apnsEndpoint)
                }
            }
            if let apnsCAFile { changes.apnsCAPEM = .some(apnsCAFile == "none" ? nil : try CLIError.caPEM(file: apnsCAFile)) }
            if let apnsManagementEndpoint {
                if apnsManagementEndpoint == "none" {
                    changes.apnsManagementEndpoint = .some(nil)
                } else {
                    if let problem = NewApp.endpointProblem(apnsManagementEndpoint, field: "apnsManagementEndpoint") {
                        throw CLIError(problem)
                    }
                    changes.apnsManagementEndpoint = .some(apnsManagementEndpoint)
                }
            }
            guard !changes.isEmpty else {
                throw CLIError("give --environment, --apns-endpoint, --apns-ca-file or --apns-management-endpoint")
            }
            let app = try await AppsCommand.change(bundleID, changes, options: options)
            let management = app.apnsManagementEndpoint ?? (app.apnsEndpoint == nil ? "Apple's" : "none (set one to manage channels)")
            print(
                "\(app.bundleID): \(app.defaultEnvironment.rawValue), endpoint \(app.apnsEndpoint ?? "Apple's"), channel management \(management).")
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable an app: it sends nothing until enabled (campaigns in progress fail with AppDisabled).")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String

        func run() async throws {
            let app = try await AppsCommand.change(bundleID, AppChanges(disabled: true), options: options)
            print("Disabled \(app.bundleID).")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled app again.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The app's bundle ID.") var bundleID: String

        func run() async throws {
            let app = try await AppsCommand.change(bundleID, AppChanges(disabled: false), options: options)
            print("Enabled \(app.bundleID).")
        }
    }

    static func change(_ bundleID: String, _ changes: AppChanges, options: CommonOptions) async throws -> App {
        let (configuration, logger) = try options.load()
        return try await Store.with(configuration, logger: logger) { store in
            let app = try await store.requireApp(bundleID)
            guard let updated = try await store.apps.update(appID: app.id, changes: changes, actor: cliActor) else {
                throw CLIError("no app has the bundle ID \(bundleID)")
            }
            return updated
        }
    }

    struct CredentialsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credentials", abstract: "An app's APNs credentials (.p8 keys, .p12 certificates): add, list, activate, retire.",
            subcommands: [List.self, Add.self, Activate.self, Retire.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an app's credentials (never their secrets).")

            @OptionGroup var options: CommonOptions
            @Argument(help: "The app's bundle ID.") var bundleID: String

            func run() async throws {
                let (configuration, logger) = try options.load()
                let credentials = try await Store.with(configuration, logger: logger) { store in
                    try await store.apps.credentials(appID: try await store.requireApp(bundleID).id)
                }
                let rows = credentials.map { credential in
                    [
                        String(credential.id), credential.kind.rawValue,
                        credential.keyID ?? credential.certificateSubject ?? "-", credential.fingerprint ?? "-",
                        credential.state.rawValue, KeysCommand.List.format(credential.createdAt),
                        credential.activatedAt.map(KeysCommand.List.format) ?? "-",
                        credential.certificateExpiresAt.map(KeysCommand.List.format) ?? "-",
                        credential.rejectedAt.map { "\(KeysCommand.List.format($0)) \(credential.rejectionReason ?? "")" } ?? "-",
                    ]
                }
                print(
                    Table.render(
                        header: ["ID", "KIND", "KEY ID / SUBJECT", "FINGERPRINT", "STATE", "ADDED", "ACTIVATED", "EXPIRES", "REFUSED BY APNS"],
                        rows: rows))
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a .p8 signing key or a .p12 certificate, as standby (make it active later) or active at once with --activate.")

            @OptionGroup var options: CommonOptions
            @Argument(help: "The app's bundle ID.") var bundleID: String
            @Option(help: "The 10-character ID of the signing key (with --key-file).") var keyID: String?
            @Option(help: "The AuthKey_<KEYID>.p8 file Apple gave you.") var keyFile: String?
            @Option(help: "A .p12 client certificate exported from Keychain Access (instead of a .p8).") var p12: String?
            @Option(help: "A file holding the .p12's password on its first line ('-': standard input).") var passwordFile: String?
            @Flag(help: "Make it the active credential now; the active one becomes standby.") var activate = false

            func run() async throws {
                let (configuration, logger) = try options.load()
                let credential = try await Store.with(configuration, logger: logger) { store in
                    let app = try await store.requireApp(bundleID)
                    return try await store.apps.addCredential(
                        appID: app.id, try newCredential(for: app), activate: activate, actor: cliActor)
                }
                let what =
                    credential.kind == .token
                    ? "key \(credential.keyID ?? "-")"
                    : "certificate \(credential.certificateSubject ?? "-"), expires \(credential.certificateExpiresAt.map(KeysCommand.List.format) ?? "-")"
                print(
                    "Added credential \(credential.id) (\(what), fingerprint \(credential.fingerprint ?? "-")) to \(bundleID) as \(credential.state.rawValue)."
                )
            }

            func newCredential(for app: App) throws -> NewCredential {
                switch (keyFile, p12) {
                case (let keyFile?, nil):
                    guard let keyID else { throw CLIError("--key-id is required with --key-file") }
                    guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                        throw CLIError("--key-file: cannot read \(keyFile)")
                    }
                    do {
                        return .signingKey(try NewSigningKey(keyID: keyID, pem: pem))
                    } catch {
                        throw CLIError(error, flags: ["privateKey": "--key-file"])
                    }
                case (nil, let p12?):
                    guard keyID == nil else { throw CLIError("--key-id goes with --key-file, not --p12") }
                    guard let bytes = FileManager.default.contents(atPath: p12) else { throw CLIError("--p12: cannot read \(p12)") }
                    guard let passwordFile else { throw CLIError("--password-file is required with --p12") }
                    let password = try CLISecret.firstLine(file: passwordFile, flag: "--password-file")
                    do {
                        return .certificate(
                            try PKCS12CertificateReader().read(
                                pkcs12: Array(bytes), password: password, bundleID: app.bundleID, now: Date(), field: ""))
                    } catch {
                        throw CLIError(error, flags: ["certificate": "--p12", "password": "--password-file"])
                    }
                case (nil, nil): throw CLIError("give --key-id and --key-file (a .p8 key), or --p12 and --password-file")
                case (_?, _?): throw CLIError("give --key-file or --p12, not both")
                }
            }
        }

        struct Activate: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a standby credential the active one; every instance switches within HERALD_APNS_CREDENTIAL_RECHECK_MS.")

            @OptionGroup var options: CommonOptions
            @Argument(help: "The app's bundle ID.") var bundleID: String
            @Argument(help: "The credential's ID, as `herald apps credentials list` shows it.") var id: Int64

            func run() async throws {
                let credential = try await CredentialsCommand.change(bundleID, options: options) { store, appID in
                    try await store.apps.activateCredential(appID: appID, credentialID: id, actor: cliActor)
                }
                print("Credential \(credential.id) (\(CredentialsCommand.name(credential))) is now active for \(bundleID).")
            }
        }

        struct Retire: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Retire a standby credential: its secret is wiped for good.")

            @OptionGroup var options: CommonOptions
            @Argument(help: "The app's bundle ID.") var bundleID: String
            @Argument(help: "The credential's ID, as `herald apps credentials list` shows it.") var id: Int64

            func run() async throws {
                let credential = try await CredentialsCommand.change(bundleID, options: options) { store, appID in
                    try await store.apps.retireCredential(appID: appID, credentialID: id, actor: cliActor)
                }
                print("Retired credential \(credential.id) (\(CredentialsCommand.name(credential))) of \(bundleID).")
            }
        }

        /// "key ABC123DEFG" or "certificate UID=…", for one-line answers.
        static func name(_ credential: AppCredential) -> String {
            credential.kind == .token
                ? "key \(credential.keyID ?? "-")" : "certificate \(credential.certificateSubject ?? "-")"
        }

        static func change(
            _ bundleID: String, options: CommonOptions,
            _ body: @escaping @Sendable (Store, Int64) async throws -> AppCredential?
        ) async throws -> AppCredential {
            let (configuration, logger) = try options.load()
            return try await Store.with(configuration, logger: logger) { store in
                do {
                    guard let credential = try await body(store, try await store.requireApp(bundleID).id) else {
                        throw CLIError("\(bundleID) has no credential with this ID")
                    }
                    return credential
                } catch let error as CredentialStateError {
                    throw CLIError(error.description)
                }
            }
        }
    }
}

extension Store {
    /// The app, or the CLI's one-line reason.
    func requireApp(_ bundleID: String) async throws -> App {
        guard let app = try await apps.find(bundleID: bundleID) else { throw CLIError("no app has the bundle ID \(bundleID)") }
        return app
    }
}
