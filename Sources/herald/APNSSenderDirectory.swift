import APNSClient
import APNSCore
import HeraldCore
import Logging
import NIOCore

/// The engine's senders: one `APNSClient` (a sharded pool of HTTP/2 connections) per app
/// and environment, made on first use from the app's stored credentials and kept until the
/// process stops or APNs refuses the credentials (then the next use makes a fresh one, so a
/// fixed key is picked up).
actor APNSSenderDirectory: SenderDirectory {
    private let apps: any AppRepository
    private let adjust: @Sendable (inout APNSClientConfiguration) -> Void
    private let logger: Logger
    private var clients: [Key: Task<APNSClientSender, any Error>] = [:]

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
        let requestTimeout = configuration.apnsRequestTimeoutMilliseconds
        let pingTimeout = configuration.apnsPingTimeoutMilliseconds
        self.init(apps: apps, logger: logger) { apns in
            apns.shards = shards
            apns.connectionsPerShard = connections
            apns.requestTimeout = .milliseconds(Int64(requestTimeout))
            apns.pingTimeout = .milliseconds(Int64(pingTimeout))
        }
    }

    /// The app's sender for the environment. Callers that ask for the same one at once share
    /// one creation (the actor is reentrant across the database reads), so a pool is never
    /// built twice and left open.
    func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender {
        let key = Key(appID: appID, environment: environment)
        while true {
            let creation: Task<APNSClientSender, any Error>
            if let existing = clients[key] {
                creation = existing
            } else {
                creation = Task { try await self.make(appID: appID, environment: environment) }
                clients[key] = creation
                created += 1
            }
            let sender: APNSClientSender
            do {
                sender = try await creation.value
            } catch {
                // The next request tries again (a key fixed meanwhile is picked up).
                if clients[key] == creation { clients[key] = nil }
                throw error
            }
            guard sender.client.stoppedReason != nil else { return sender }
            // APNs refused these credentials: make a fresh client, so a fixed key is picked up.
            if clients[key] == creation {
                clients[key] = nil
                await sender.client.shutdown()
            }
        }
    }

    /// Pools built so far (tests check that concurrent callers share one).
    private(set) var created = 0

    private func make(appID: Int64, environment: APNSEnvironment) async throws -> APNSClientSender {
        guard let app = try await apps.find(id: appID) else {
            throw SendFailure(.unknownApp, detail: "app \(appID) no longer exists")
        }
        // An instance without HERALD_SECRET_KEY cannot open the key: that error is the
        // instance's, not the app's, so it propagates and the chunk is given back.
        let signingKey = try await apps.signingKey(appID: appID)
        do {
            let client = try APNSClient.forApp(
                app, signingKeyPEM: signingKey, environment: environment, adjust: adjust, logger: logger)
            return APNSClientSender(bundleID: app.bundleID, client: client)
        } catch {
            throw SendFailure(
                .credentialsUnusable, detail: "\(app.bundleID): \(error)", credentialsRejected: true)
        }
    }

    /// Closes every connection.
    func shutdown() async {
        let creations = clients.values
        clients = [:]
        for creation in creations {
            if let sender = try? await creation.value { await sender.client.shutdown() }
        }
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
