import Foundation
import NIOCore

/// How the sender connects and behaves. Defaults follow docs/apns.md: a few long-lived
/// connections, PING after an hour idle, backoff on failures.
public struct APNSClientConfiguration: Sendable {
    public var endpoint: APNSEndpoint
    /// Where channel management requests go (one connection, opened on first use); nil
    /// refuses them.
    public var managementEndpoint: APNSEndpoint?
    /// Shards; a notification goes to the shard its token hashes to.
    public var shards = 2
    /// HTTP/2 connections each shard keeps to the endpoint.
    public var connectionsPerShard = 1
    /// Event loops of the group the client's connections are spread over, a shard's connections
    /// on one (shard `i` on loop `i % eventLoops`); nil spreads them over all the group's loops.
    /// Fewer loops hop fewer threads per batch (docs/scaling.md, "Event loops of a sender").
    public var eventLoops: Int?
    /// Notifications a shard holds at once (queued or in flight); callers wait beyond it.
    public var maximumInFlightPerShard = 1000
    /// Attempts per notification for retryable failures (5xx, lost connections, GOAWAY).
    public var maximumAttempts = 4
    public var retryBaseDelay = Duration.milliseconds(100)
    public var maximumRetryDelay = Duration.seconds(10)
    /// How long one attempt may wait for a stream slot and then for APNs's answer; past it the
    /// stream is reset, the connection PINGed, and the notification sent again (same apns-id)
    /// while attempts remain, else it fails with reason `Timeout`.
    public var requestTimeout = TimeAmount.seconds(30)
    /// PING a connection that heard nothing from the server for this long.
    public var idlePingInterval = TimeAmount.minutes(55)
    /// Close a connection whose PING goes unanswered this long.
    public var pingTimeout = TimeAmount.seconds(10)
    public var connectTimeout = TimeAmount.seconds(10)
    /// Extra CA certificates (PEM) to trust besides the system roots, e.g. the simulator's.
    public var additionalTrustRootsPEM: String?
    /// The clock provider tokens are timed by; tests inject their own.
    public var now: @Sendable () -> Date = { Date() }

    public init(endpoint: APNSEndpoint) {
        self.endpoint = endpoint
    }
}
