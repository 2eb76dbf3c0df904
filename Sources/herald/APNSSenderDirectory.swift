import APNSClient
import APNSCore
import HeraldCore
import Logging

/// The engine's senders: one `APNSClient` (a sharded pool of HTTP/2 connections) per app
/// and environment, made on first use from the app's stored credentials and kept until the
/// process stops or APNs refuses the credentials (then the next use makes a fresh one, so a
/// fixed key is picked up).
actor APNSSenderDirectory: SenderDirectory {
    private let apps: any AppRepository
    private let adjust: @Sendable (inout APNSClientConfiguration) -> Void
    private let logger: Logger
    private var clients: [Key: APNSClientSender] = [:]

    private struct Key: Hashable {
        var appID: Int64
        var environment: APNSEnvironment
    }

    init(
        apps: any AppRepository, logger: Logger, adjust: @escaping @Sendable (inout APNSClientConfiguration) -> Void = { _ in }
    ) {
        self.apps = apps
        self.logger = logger
        self.adjust = adjust
    }

    /// The pools' shape from the configuration (`HERALD_APNS_SHARDS`, `…_CONNECTIONS_PER_SHARD`).
    init(configuration: HeraldConfiguration, apps: any AppRepository, logger: Logger) {
        let shards = configuration.apnsShards
        let connections = configuration.apnsConnectionsPerShard
        self.init(apps: apps, logger: logger) { apns in
            apns.shards = shards
            apns.connectionsPerShard = connections
        }
    }

    func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender {
        let key = Key(appID: appID, environment: environment)
        if let existing = clients[key] {
            guard existing.client.stoppedReason != nil else { return existing }
            clients[key] = nil
            await existing.client.shutdown()
        }
        guard let app = try await apps.find(id: appID) else {
            throw SendFailure(reason: "UnknownApp", detail: "app \(appID) no longer exists")
        }
        // An instance without HERALD_SECRET_KEY cannot open the key: that error is the
        // instance's, not the app's, so it propagates and the chunk is given back.
        let signingKey = try await apps.signingKey(appID: appID)
        let client: APNSClient
        do {
            client = try APNSClient.forApp(
                app, signingKeyPEM: signingKey, environment: environment, adjust: adjust, logger: logger)
        } catch {
            throw SendFailure(
                reason: "CredentialsUnusable", detail: "\(app.bundleID): \(error)", credentialsRejected: true)
        }
        let sender = APNSClientSender(bundleID: app.bundleID, client: client)
        clients[key] = sender
        return sender
    }

    /// Closes every connection.
    func shutdown() async {
        for sender in clients.values { await sender.client.shutdown() }
        clients = [:]
    }
}

/// An `APNSClient` as the engine's sender.
struct APNSClientSender: NotificationSender {
    let bundleID: String
    let client: APNSClient

    func send(_ notifications: [APNSNotification]) async -> [SendResult] {
        await client.send(notifications).map(SendResult.init)
    }
}

extension SendResult {
    init(_ result: APNSDeliveryResult) {
        switch result {
        case .answered(let response): self = .answered(response)
        case .deferred(let response): self = .deferred(response)
        case .failed(let error):
            self = .failed(
                SendFailure(reason: error.reason, detail: error.detail, credentialsRejected: error.isCredentialsRejected))
        }
    }
}
