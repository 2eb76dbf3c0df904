import APNSCore
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// The sharded APNs sender (docs/apns.md, "Results and retries"): S shards, each with its own HTTP/2
/// connections; a notification goes to the shard its token hashes to; every notification
/// gets exactly one final result; retries follow docs/apns.md, "Results and retries".
public final class APNSClient: Sendable {
    private let configuration: APNSClientConfiguration
    private let shards: [APNSShard]
    /// One connection to the channel management endpoint, opened on first use.
    private let management: APNSShard?
    private let stopped = NIOLockedValueBox<APNSClientError?>(nil)
    private let metrics = APNSClientMetrics()
    private let backoff: Backoff
    private let logger: Logger

    /// `tokenSource`: the provider tokens of the credentials' team and key, shared with other
    /// clients (and, through its owner, other processes); nil makes one of this client's own.
    public init(
        configuration: APNSClientConfiguration, credentials: APNSCredentials, tokenSource shared: ProviderTokenSource? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) throws {
        self.configuration = configuration
        self.logger = logger
        backoff = Backoff(base: configuration.retryBaseDelay, maximum: configuration.maximumRetryDelay)
        let tls = try NIOSSLContext(configuration: Self.tlsConfiguration(configuration, credentials))
        let tokenSource: ProviderTokenSource? =
            if case .token(let signer) = credentials {
                shared.flatMap { $0.keyID == signer.keyID && $0.teamID == signer.teamID ? $0 : nil }
                    ?? ProviderTokenSource(signer: signer)
            } else {
                nil
            }
        let metrics = self.metrics
        let loops = Self.eventLoops(configuration, in: group)
        management = configuration.managementEndpoint.map { endpoint in
            var managementLogger = logger
            managementLogger[metadataKey: "apns.endpoint"] = "management"
            let connectLogger = managementLogger
            return APNSShard(
                connections: 1, maximumInFlight: 100,
                backoff: Backoff(base: configuration.retryBaseDelay, maximum: configuration.maximumRetryDelay),
                metrics: metrics, logger: managementLogger
            ) {
                try await APNSConnection.connect(
                    endpoint: endpoint, tls: tls, tokenSource: tokenSource, configuration: configuration,
                    metrics: metrics, group: loops[0], logger: connectLogger)
            }
        }
        shards = (0..<max(configuration.shards, 1)).map { index in
            let loop = loops[index % loops.count]
            var shardLogger = logger
            shardLogger[metadataKey: "apns.shard"] = "\(index)"
            let connectLogger = shardLogger
            return APNSShard(
                connections: configuration.connectionsPerShard, maximumInFlight: configuration.maximumInFlightPerShard,
                backoff: Backoff(base: configuration.retryBaseDelay, maximum: configuration.maximumRetryDelay),
                metrics: metrics, logger: shardLogger
            ) {
                try await APNSConnection.connect(
                    endpoint: configuration.endpoint, tls: tls, tokenSource: tokenSource, configuration: configuration,
                    metrics: metrics, group: loop, logger: connectLogger)
            }
        }
    }

    static func tlsConfiguration(
        _ configuration: APNSClientConfiguration, _ credentials: APNSCredentials
    ) throws
        -> TLSConfiguration
    {
        var tls = TLSConfiguration.makeClientConfiguration()
        // docs/apns.md, "The connection": TLS 1.2 or later, ALPN h2; system roots plus any extra CA.
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        if let pem = configuration.additionalTrustRootsPEM {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
        }
        if case .certificate(let certificate) = credentials {
            tls.certificateChain = certificate.chain.map { .certificate($0) }
            tls.privateKey = .privateKey(certificate.privateKey)
        }
        return tls
    }

    /// Bounds resends of streams a GOAWAY left unprocessed, so a server that closes every
    /// connection at once cannot loop a notification forever.
    static let maximumUnprocessedRetries = 32

    /// The shard of a token: a stable hash (FNV-1a) of its bytes.
    public func shardIndex(for token: DeviceToken) -> Int {
        shardIndex(forBytes: token.bytes)
    }

    private func shardIndex(forBytes bytes: some Sequence<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(shards.count))
    }

    /// Sends a broadcast (on the shard its channel hashes to) or a channel management request
    /// (on the management connection) and returns its one final result, under the retry
    /// rules of ``send(_:)-(APNSNotification)``; a create, which is not idempotent, is sent
    /// again only when APNs certainly never saw it.
    public func send(_ request: APNSChannelRequest) async -> APNSDeliveryResult {
        let body: [UInt8]
        do {
            body = try request.encodedBody()
        } catch {
            return .failed(.invalidNotification(error.description))
        }
        if let stopped = stopped.withLockedValue({ $0 }) { return .failed(stopped) }
        let shard: APNSShard
        if request.isManagement {
            guard let management else {
                return .failed(
                    .invalidNotification(
                        "no channel management endpoint is configured (an app whose APNs endpoint is overridden names its management endpoint too)"
                    ))
            }
            shard = management
        } else {
            shard = shards[shardIndex(forBytes: request.channel?.value.utf8 ?? "".utf8)]
        }
        await shard.limiter.acquire()
        defer { shard.limiter.release() }
        return await deliver(shard: shard, firstAttempt: nil, idempotent: request.isIdempotent) { connection in
            try await connection.send(request, body: body)
        }
    }

    /// Sends one notification and returns its one final result. Suspends while the token's
    /// shard already holds its bound of notifications.
    public func send(_ notification: APNSNotification) async -> APNSDeliveryResult {
        let body: [UInt8]
        do {
            // Payloads are checked before they leave (docs/apns.md, "Results and retries").
            body = try notification.validate()
        } catch {
            return .failed(.invalidNotification(error.description))
        }
        if let stopped = stopped.withLockedValue({ $0 }) { return .failed(stopped) }
        let shard = shards[shardIndex(for: notification.token)]
        await shard.limiter.acquire()
        defer { shard.limiter.release() }
        metrics.inFlight.increment()
        defer { metrics.inFlight.decrement() }
        return await deliver(shard: shard, firstAttempt: nil) { connection in
            try await connection.send(notification, body: body)
        }
    }

    /// Sends many notifications and returns their final results in the same order.
    ///
    /// The fast path for campaigns: each shard's share goes to a connection in one hop onto
    /// its event loop and comes back in one, instead of a hop each way per notification.
    /// Whatever needs another attempt (5xx, a lost connection, GOAWAY, an expired provider
    /// token) continues one by one through the same retry rules as `send(_:)`. Suspends while
    /// a shard holds its bound of notifications in flight.
    public func send(_ notifications: [APNSNotification]) async -> [APNSDeliveryResult] {
        var results = [APNSDeliveryResult?](repeating: nil, count: notifications.count)
        // Each shard's share as the places of its notifications: the notifications stay where
        // they are, and each is copied once, into its request.
        var bodies = [[UInt8]](repeating: [], count: notifications.count)
        var places = [[Int]](repeating: [], count: shards.count)
        let stoppedReason = stopped.withLockedValue { $0 }
        for index in notifications.indices {
            do throws(NotificationError) {
                // Payloads are checked before they leave (docs/apns.md, "Results and retries").
                bodies[index] = try notifications[index].validate()
                if let stoppedReason {
                    results[index] = .failed(stoppedReason)
                } else {
                    places[shardIndex(for: notifications[index].token)].append(index)
                }
            } catch {
                results[index] = .failed(.invalidNotification(error.description))
            }
        }
        let batch = APNSRequestBatch(notifications: notifications, bodies: bodies)
        await withTaskGroup(of: (ArraySlice<Int>, [APNSDeliveryResult]).self) { group in
            for (shardIndex, shardPlaces) in places.enumerated() where !shardPlaces.isEmpty {
                let shard = shards[shardIndex]
                // Spread a shard's share over its connections, within its in-flight bound.
                let size = min(shard.limiter.limit, (shardPlaces.count + shard.wanted - 1) / shard.wanted)
                for start in stride(from: 0, to: shardPlaces.count, by: size) {
                    let part = shardPlaces[start..<min(start + size, shardPlaces.count)]
                    group.addTask { (part, await self.deliver(batch, places: part, shard: shard)) }
                }
            }
            for await (partPlaces, partResults) in group {
                for (index, result) in zip(partPlaces, partResults) { results[index] = result }
            }
        }
        return results.map { $0! }
    }

    private func deliver(
        _ batch: APNSRequestBatch, places: ArraySlice<Int>, shard: APNSShard
    ) async
        -> [APNSDeliveryResult]
    {
        await shard.limiter.acquire(places.count)
        defer { shard.limiter.release(places.count) }
        metrics.inFlight.increment(by: Double(places.count))
        defer { metrics.inFlight.decrement(by: Double(places.count)) }
        let outcomes: [APNSBatchCollector.Outcome]
        var connection: APNSConnection?
        do {
            let chosen = try await shard.connection()
            connection = chosen
            outcomes = await chosen.send(batch: batch, places: places)
        } catch {
            let failure = (error as? APNSClientError) ?? .connectionLost("the connection failed")
            outcomes = Array(repeating: .failure(failure), count: places.count)
        }
        var results = [APNSDeliveryResult]()
        results.reserveCapacity(places.count)
        for (offset, outcome) in outcomes.enumerated() {
            if case .success(let response) = outcome, response.status == 200 {
                metrics.answered(response)
                results.append(.answered(response))
            } else {
                let place = places[places.startIndex + offset]
                let result = await deliver(shard: shard, firstAttempt: (outcome, connection)) { connection in
                    try await connection.send(batch.notifications[place], body: batch.bodies[place])
                }
                results.append(result)
            }
        }
        return results
    }

    /// Delivers one request under the retry rules of docs/apns.md. `firstAttempt` is the answer of an
    /// attempt a batch already made, and the connection that made it. A request that is not
    /// `idempotent` is sent again only when APNs never saw it (no connection, or GOAWAY left it
    /// unprocessed).
    private func deliver(
        shard: APNSShard, firstAttempt: (outcome: APNSBatchCollector.Outcome, connection: APNSConnection?)?,
        idempotent: Bool = true, send: (APNSConnection) async throws -> APNSResponse
    ) async -> APNSDeliveryResult {
        var attempt = 0
        var unprocessed = 0
        var renewedToken = false
        var pending = firstAttempt?.outcome
        var connection = firstAttempt?.connection
        var sent = true
        while true {
            attempt += 1
            if let stopped = stopped.withLockedValue({ $0 }) { return .failed(stopped) }
            do {
                let response: APNSResponse
                if let outcome = pending {
                    pending = nil
                    response = try outcome.get()
                } else {
                    sent = false
                    let chosen = try await shard.connection()
                    connection = chosen
                    sent = true
                    response = try await send(chosen)
                }
                metrics.answered(response)
                switch response.disposition {
                case .retryLater where response.status == 429:
                    // 429 TooManyRequests defers that device (docs/apns.md, "Results and retries").
                    return .deferred(response)
                case .retryLater where idempotent && attempt < configuration.maximumAttempts:
                    metrics.retries.increment()
                    try? await Task.sleep(for: backoff.delay(afterFailures: attempt))
                    continue
                case .renewProviderToken where !renewedToken:
                    // 403 ExpiredProviderToken: renew and retry once.
                    renewedToken = true
                    // The 20-minute floor is per connection: renew on the one that was refused.
                    let renewing: APNSConnection
                    if let connection { renewing = connection } else { renewing = try await shard.connection() }
                    if await renewing.renewProviderToken() { continue }
                    return .answered(response)
                case .stopApp:
                    // 403 InvalidProviderToken / BadCertificate: stop sending with these credentials.
                    let reason = response.reason?.rawValue ?? "status \(response.status)"
                    stop(.credentialsRejected("\(response.status) \(reason)"))
                    return .answered(response)
                default:
                    return .answered(response)
                }
            } catch let error as APNSClientError where error.isUnprocessed && unprocessed < Self.maximumUnprocessedRetries {
                // GOAWAY left this stream unprocessed: APNs never saw it, so sending it again
                // elsewhere is always safe and does not spend an attempt.
                unprocessed += 1
                attempt -= 1
                metrics.retries.increment()
            } catch let error as APNSClientError
                where (idempotent || !sent) && error.isRetryable && attempt < configuration.maximumAttempts
            {
                // (Without a connection nothing was sent: safe to try again even for a create.)
                metrics.retries.increment()
                try? await Task.sleep(for: backoff.delay(afterFailures: attempt))
            } catch let error as APNSClientError {
                metrics.failed(error)
                // Refused in the TLS handshake: stop with these credentials, as for a 403.
                if error.isCredentialsRejected { stop(error) }
                return .failed(error)
            } catch {
                return .failed(.connectionLost("the connection failed"))
            }
        }
    }

    /// The error every later `send` fails with, if sending has stopped.
    public var stoppedReason: APNSClientError? { stopped.withLockedValue { $0 } }

    private func stop(_ error: APNSClientError) {
        let first = stopped.withLockedValue { current -> Bool in
            guard current == nil else { return false }
            current = error
            return true
        }
        if first { logger.error("stopped sending for these credentials", metadata: ["reason": "\(error.detail)"]) }
    }

    /// Where each shard's connections are made (``APNSClientConfiguration/eventLoops``): shard `i`
    /// on the `i % count`th of a few loops taken from the group, or on the whole group.
    static func eventLoops(_ configuration: APNSClientConfiguration, in group: any EventLoopGroup) -> [any EventLoopGroup] {
        guard let count = configuration.eventLoops else { return [group] }
        // Taken in turn, so that clients made one after another start on different loops.
        let available = Array(group.makeIterator()).count
        return (0..<min(max(count, 1), max(available, 1))).map { _ in group.next() }
    }

    /// The event loop of each shard's connection (opening it if none is open), in shard order.
    func connectionEventLoops() async throws -> [ObjectIdentifier] {
        var loops = [ObjectIdentifier]()
        for shard in shards { loops.append(ObjectIdentifier(try await shard.connection().channel.eventLoop as AnyObject)) }
        return loops
    }

    /// Closes every connection; later sends fail.
    public func shutdown() async {
        stopped.withLockedValue { if $0 == nil { $0 = .shutdown } }
        for shard in shards { await shard.shutdown() }
        await management?.shutdown()
    }
}
