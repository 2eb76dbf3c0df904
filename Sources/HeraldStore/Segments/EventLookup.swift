import HeraldCore
import Logging
import PostgresNIO

/// How a segment's conditions on events (opened, converted, a custom event) reach `events`
/// (docs/scaling.md, "Segments built from events").
///
/// On one PostgreSQL each device's condition is an `EXISTS` correlated with the device: one
/// index probe per device, and under `NOT` still one probe ("not opened in 30 days"). A Citus
/// cluster refuses that: `devices` is spread over the workers and `events` stays on the
/// coordinator. There the condition is a set instead, `devices.id IN (…)`, which the cluster
/// computes once on the coordinator and sends to the workers. The set is not used on one
/// PostgreSQL because under `NOT` it is a hash only while it fits in `hash_mem`; past that,
/// PostgreSQL scans the whole set again for every device.
enum EventLookup: Sendable, Equatable {
    /// A correlated `EXISTS` per device (one PostgreSQL).
    case perDevice
    /// The app's matching events as a set, uncorrelated (a Citus cluster).
    case asSet(appID: Int64)

    /// The lookup for the app's `segments` on this database: `perDevice` without asking when
    /// none reads events, else `asSet` when `devices` is distributed by Citus.
    static func choose(
        appID: Int64, segments: [Segment], on connection: PostgresConnection, logger: Logger
    ) async throws -> EventLookup {
        guard segments.contains(where: \.readsEvents) else { return .perDevice }
        let citus =
            try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        guard citus else { return .perDevice }
        let distributed =
            try await connection.query(
                """
                SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'devices'::regclass AND partmethod = 'h')
                """, logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        return distributed ? .asSet(appID: appID) : .perDevice
    }

    static func choose(
        appID: Int64, segments: [Segment], client: PostgresClient, logger: Logger
    ) async throws
        -> EventLookup
    {
        guard segments.contains(where: \.readsEvents) else { return .perDevice }
        return try await client.withConnection { connection in
            try await choose(appID: appID, segments: segments, on: connection, logger: logger)
        }
    }
}

extension Segment {
    /// Whether a condition of the segment reads `events`.
    var readsEvents: Bool {
        switch self {
        case .all(let parts), .any(let parts): parts.contains(where: \.readsEvents)
        case .not(let inner): inner.readsEvents
        case .opened, .converted, .event: true
        case .attribute, .language, .timeZone, .environment, .authorization, .registered, .userID, .received: false
        }
    }
}

extension AudienceFilter {
    /// The filter's segment and its resolved saved segment.
    var segmentParts: [Segment] {
        [segment, savedSegmentDefinition].compactMap { $0 }
    }
}
