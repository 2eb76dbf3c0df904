import APNSClient
import HeraldCore
import HeraldSending
import HeraldStore
import Logging
import NIOCore

extension APNSSenderDirectory {
    /// The pools' shape from the configuration (`HERALD_APNS_SHARDS`, `…_CONNECTIONS_PER_SHARD`,
    /// `…_IN_FLIGHT_PER_SHARD`, `…_EVENT_LOOPS`).
    public init(
        configuration: HeraldConfiguration, apps: any AppRepository, providerTokens: PostgresProviderTokens? = nil, logger: Logger
    ) {
        let shards = configuration.apnsShards
        let connections = configuration.apnsConnectionsPerShard
        let eventLoops = configuration.apnsEventLoops
        let inFlight = configuration.apnsInFlightPerShard
        let requestTimeout = configuration.apnsRequestTimeoutMilliseconds
        let pingTimeout = configuration.apnsPingTimeoutMilliseconds
        self.init(
            apps: apps, logger: logger, recheckInterval: .milliseconds(Int64(configuration.credentialRecheckMilliseconds)),
            providerTokens: providerTokens
        ) { apns in
            apns.shards = shards
            apns.connectionsPerShard = connections
            apns.eventLoops = eventLoops == 0 ? nil : eventLoops
            apns.maximumInFlightPerShard = inFlight
            apns.requestTimeout = .milliseconds(Int64(requestTimeout))
            apns.pingTimeout = .milliseconds(Int64(pingTimeout))
        }
    }
}
