import APNSClient
import APNSCore
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import Synchronization

/// The engine's senders: one `APNSClient` (a sharded pool of HTTP/2 connections) per app
/// and environment, made on first use from the app's active credential.
///
/// A client is replaced when APNs refuses its credentials, and when an admin makes another
/// credential active: at most every `recheckInterval`, a lookup reads the app's active
/// credential and whether it is disabled (one indexed read), so a switch made through any
/// instance reaches every instance within that interval, without a restart. The old client
/// is retired without dropping anything: sends already inside it finish there, later sends
/// through a sender handed out before the switch go to the new client (docs/admin.md).
public actor APNSSenderDirectory: SenderDirectory {
    private let apps: any AppRepository
    private let adjust: @Sendable (inout APNSClientConfiguration) -> Void
    private let logger: Logger
    private let recheckInterval: Duration
    /// The provider tokens of every team, shared by this directory's clients and synced with
    /// the other instances.
    public nonisolated let providerTokens: SharedProviderTokens
    private var clients: [Key: Task<APNSClientSender, any Error>] = [:]
    private var checkedAt: [Key: ContinuousClock.Instant] = [:]

    struct Key: Hashable {
        var appID: Int64
        var environment: APNSEnvironment
    }

    public init(
        apps: any AppRepository, logger: Logger, recheckInterval: Duration = .seconds(5),
        providerTokens: PostgresProviderTokens? = nil,
        adjust: @escaping @Sendable (inout APNSClientConfiguration) -> Void = { _ in }
    ) {
        self.providerTokens = SharedProviderTokens(store: providerTokens, logger: logger)
        self.apps = apps
        self.logger = logger
        self.recheckInterval = recheckInterval
        self.adjust = adjust
    }

    /// The app's sender for the environment. Callers that ask for the same one at once share
    /// one creation (the actor is reentrant across the database reads), so a pool is never
    /// built twice and left open.
    public func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender {
        let key = Key(appID: appID, environment: environment)
        while true {
            let creation: Task<APNSClientSender, any Error>
            if let existing = clients[key] {
                creation = existing
            } else {
                creation = Task { try await self.make(appID: appID, environment: environment) }
                clients[key] = creation
                checkedAt[key] = .now
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
            if sender.client.stoppedReason != nil {
                // APNs refused these credentials: make a fresh client, so a fixed key is picked up.
                drop(key, creation, sender)
                continue
            }
            if let last = checkedAt[key], ContinuousClock.now - last < recheckInterval { return sender }
            checkedAt[key] = .now
            guard let state = try await apps.sendingState(appID: appID) else {
                drop(key, creation, sender)
                throw SendFailure(.unknownApp, detail: "app \(appID) no longer exists")
            }
            if state.disabled {
                drop(key, creation, sender)
                throw SendFailure(.appDisabled, detail: "\(sender.bundleID) is disabled")
            }
            guard state.activeCredentialID == sender.credentialID else {
                logger.info(
                    "\(sender.bundleID): another credential is active; switching",
                    metadata: ["herald.credential": "\(state.activeCredentialID.map(String.init) ?? "none")"])
                drop(key, creation, sender)
                continue
            }
            guard state.connection == sender.connection else {
                logger.info("\(sender.bundleID): its APNs endpoint or trusted CAs changed; reconnecting")
                drop(key, creation, sender)
                continue
            }
            return sender
        }
    }

    /// Pools built so far (tests check that concurrent callers share one).
    private(set) var created = 0

    /// Forgets a client and retires it: it closes once the sends inside it have finished.
    private func drop(_ key: Key, _ creation: Task<APNSClientSender, any Error>, _ sender: APNSClientSender) {
        guard clients[key] == creation else { return }
        clients[key] = nil
        checkedAt[key] = nil
        let successor: @Sendable () async throws -> any NotificationSender = { [self] in
            try await self.sender(appID: key.appID, environment: key.environment)
        }
        Task { await sender.retire(successor: successor) }
    }

    private func make(appID: Int64, environment: APNSEnvironment) async throws -> APNSClientSender {
        guard let app = try await apps.find(id: appID) else {
            throw SendFailure(.unknownApp, detail: "app \(appID) no longer exists")
        }
        if app.disabledAt != nil { throw SendFailure(.appDisabled, detail: "\(app.bundleID) is disabled") }
        // An instance without HERALD_SECRET_KEY, or with another key than the one that sealed
        // the credential, cannot open it: that error is the instance's, not the app's, so the
        // engine gives the chunk back for an instance that can.
        let found: ActiveCredential?
        do {
            found = try await apps.activeCredential(appID: appID)
        } catch  where error is SigningKeyVaultError || error is ConfigurationMissing {
            throw CredentialUnopenable(appID: appID, description: "\(app.bundleID): \(error)")
        }
        guard let active = found else {
            throw SendFailure(.credentialsUnusable, detail: "\(app.bundleID) has no active credential", credentialsRejected: true)
        }
        do {
            let credentials = try APNSClient.credentials(of: app, active)
            var tokenSource: ProviderTokenSource?
            if case .token(let signer) = credentials { tokenSource = await providerTokens.source(for: signer) }
            let client = try APNSClient.forApp(
                app, credentials: credentials, tokenSource: tokenSource, environment: environment, adjust: adjust,
                logger: logger)
            let apps = self.apps
            let logger = self.logger
            let credentialID = active.credential.id
            return APNSClientSender(
                bundleID: app.bundleID, credentialID: credentialID, connection: AppConnectionSettings(app), client: client
            ) { reason in
                // Noted once per credential (audit, credentials.rejected webhook), off the send path.
                Task {
                    do {
                        _ = try await apps.recordRejection(appID: appID, credentialID: credentialID, reason: reason)
                    } catch {
                        logger.warning(
                            "cannot record that APNs refused a credential",
                            metadata: ["herald.credential": "\(credentialID)", "error.type": "\(type(of: error))"])
                    }
                }
            }
        } catch {
            throw SendFailure(
                .credentialsUnusable, detail: "\(app.bundleID): \(error)", credentialsRejected: true)
        }
    }

    /// Closes every connection.
    public func shutdown() async {
        let creations = clients.values
        clients = [:]
        for creation in creations {
            if let sender = try? await creation.value { await sender.client.shutdown() }
        }
    }
}

/// An `APNSClient` as the engine's sender. Once retired (its credential replaced, its app
/// disabled) it hands new sends to its successor and closes when the last send inside it ends.
public final class APNSClientSender: NotificationSender {
    public let bundleID: String
    public let credentialID: Int64
    /// The endpoint and CAs `client` was built with.
    public let connection: AppConnectionSettings
    public let client: APNSClient
    private let usage = Mutex(Usage())
    private let onRejected: @Sendable (String) -> Void
    private let rejectionReported = Mutex(false)

    private struct Usage {
        var sending = 0
        var successor: (@Sendable () async throws -> any NotificationSender)?
    }

    /// `onRejected` is told, once, when APNs refuses the credential.
    init(
        bundleID: String, credentialID: Int64, connection: AppConnectionSettings, client: APNSClient,
        onRejected: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.bundleID = bundleID
        self.credentialID = credentialID
        self.connection = connection
        self.client = client
        self.onRejected = onRejected
    }

    public func send(_ notifications: [APNSNotification]) async -> [SendResult] {
        let successor = usage.withLock { usage -> (@Sendable () async throws -> any NotificationSender)? in
            if usage.successor == nil { usage.sending += 1 }
            return usage.successor
        }
        if let successor {
            do {
                return try await successor().send(notifications)
            } catch let failure as SendFailure {
                return notifications.map { _ in .failed(failure) }
            } catch {
                return notifications.map { _ in .failed(SendFailure(.noSender, detail: "\(bundleID): \(error)")) }
            }
        }
        defer { usage.withLock { $0.sending -= 1 } }
        let results = await client.send(notifications).map(SendResult.init)
        // APNs's own answer (403 and its reason) says most; a send the stopped client failed says less.
        let answered = results.first { if case .answered = $0 { $0.credentialsRejection != nil } else { false } }
        if let rejection = (answered ?? results.first { $0.credentialsRejection != nil })?.credentialsRejection,
            rejectionReported.withLock({ reported in
                defer { reported = true }
                return !reported
            })
        {
            onRejected(rejection)
        }
        return results
    }

    public func send(_ request: APNSChannelRequest) async -> SendResult {
        let successor = usage.withLock { usage -> (@Sendable () async throws -> any NotificationSender)? in
            if usage.successor == nil { usage.sending += 1 }
            return usage.successor
        }
        if let successor {
            do {
                return try await successor().send(request)
            } catch let failure as SendFailure {
                return .failed(failure)
            } catch {
                return .failed(SendFailure(.noSender, detail: "\(bundleID): \(error)"))
            }
        }
        defer { usage.withLock { $0.sending -= 1 } }
        let result = SendResult(await client.send(request))
        if let rejection = result.credentialsRejection,
            rejectionReported.withLock({ reported in
                defer { reported = true }
                return !reported
            })
        {
            onRejected(rejection)
        }
        return result
    }

    /// From now on sends go to `successor`; the client closes once the sends inside it are done.
    public func retire(successor: @escaping @Sendable () async throws -> any NotificationSender) async {
        usage.withLock { $0.successor = successor }
        // Every send inside the client is bounded by the client's request deadline.
        while usage.withLock({ $0.sending > 0 }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        await client.shutdown()
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
