import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldSending
import HeraldServer
import HeraldStore

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one notification with an app's stored credentials and print APNs's answer.",
        discussion: "Exits 0 when APNs accepts the notification (200), 1 when it answers otherwise or cannot be reached.")

    @OptionGroup var options: CommonOptions
    @Option(help: "The app's bundle ID.") var app: String
    @Option(help: "The device token, in hex.") var token: String
    @Option(help: "sandbox or production (default: the app's default environment).") var environment: String?
    @Option(help: "Alert title.") var alertTitle: String?
    @Option(help: "Alert body.") var alertBody: String?
    @Option(help: "A JSON payload file, instead of --alert-title/--alert-body.") var payload: String?
    @Option(help: "apns-push-type: \(PushType.allCases.map(\.rawValue).joined(separator: ", ")).") var pushType = "alert"
    @Option(help: "apns-priority: 10, 5 or 1 (default: 5 for background, else 10).") var priority: Int?
    @Option(help: "apns-collapse-id (at most 64 bytes).") var collapseID: String?
    @Option(help: "apns-expiration: UNIX seconds, or 0 to try once and not store.") var expiration: Int?
    @Option(help: "HERALD_SECRET_KEY, which opens the stored signing key.") var secretKey: String?

    func run() async throws {
        let token: DeviceToken
        do {
            token = try DeviceToken(hex: self.token)
        } catch {
            throw CLIError("--token: \(error)")
        }
        guard let pushType = PushType(rawValue: pushType) else { throw CLIError("--push-type: unknown push type") }
        let priority = try priority.map { value -> Priority in
            guard let parsed = Priority(rawValue: value) else { throw CLIError("--priority must be 10, 5 or 1") }
            return parsed
        }
        let body = try makePayload()
        let (configuration, logger) = try options.load(extra: ["herald.secret_key": secretKey])
        let result = try await Store.with(configuration, logger: logger) { store -> APNSDeliveryResult in
            guard let app = try await store.apps.find(bundleID: app) else { throw CLIError("--app: no app \(self.app)") }
            let environment =
                try environment.map { name -> APNSEnvironment in
                    guard let parsed = APNSEnvironment(rawValue: name) else { throw CLIError("--environment must be sandbox or production") }
                    return parsed
                } ?? app.defaultEnvironment
            if app.disabledAt != nil { throw CLIError("--app: \(app.bundleID) is disabled (herald apps enable \(app.bundleID))") }
            guard let credential = try await store.apps.activeCredential(appID: app.id) else {
                throw CLIError("--app: \(app.bundleID) has no active credential (herald apps credentials add)")
            }
            let client = try APNSClient.forApp(
                app, credential: credential, environment: environment,
                adjust: { $0.shards = 1 }, logger: logger)
            let notification = APNSNotification(
                token: token, bundleID: app.bundleID, pushType: pushType, priority: priority,
                expiration: expiration.map { $0 == 0 ? .immediately : .at(Date(timeIntervalSince1970: TimeInterval($0))) },
                collapseID: collapseID, payload: body)
            let result = await client.send(notification)
            await client.shutdown()
            return result
        }
        switch result {
        case .answered(let response), .deferred(let response):
            print(Self.describe(response, token: token))
            if response.status != 200 { throw ExitCode(1) }
        case .failed(let error):
            throw CLIError("not sent: \(error.detail)")
        }
    }

    private func makePayload() throws -> Payload {
        if let payload {
            if alertTitle != nil || alertBody != nil { throw CLIError("give --payload or --alert-title/--alert-body, not both") }
            guard let data = FileManager.default.contents(atPath: payload) else { throw CLIError("--payload: cannot read \(payload)") }
            do {
                return try Payload(json: Array(data))
            } catch {
                throw CLIError("--payload: \(error)")
            }
        }
        guard alertTitle != nil || alertBody != nil else {
            throw CLIError("give --alert-title and/or --alert-body, or --payload FILE")
        }
        return Payload(aps: .init(alert: .fields(.init(title: alertTitle, body: alertBody))))
    }

    static func describe(_ response: APNSResponse, token: DeviceToken) -> String {
        var line = "\(response.status)"
        if let reason = response.reason { line += " \(reason.rawValue)" }
        if let id = response.apnsID { line += " apns-id=\(id.canonicalString)" }
        if let timestamp = response.timestamp { line += " timestamp=\(timestamp.rfc3339)" }
        return line + " token=\(token.redacted)"
    }
}
