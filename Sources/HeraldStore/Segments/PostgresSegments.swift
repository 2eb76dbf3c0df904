import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Saved segments and their versions, and the evaluation of any segment against an app's valid
/// devices (docs/segments.md).
public struct PostgresSegments: SegmentRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    static let columns = """
        s.app_id, s.name, s.description, v.version, v.definition::text, s.created_by, s.created_at, s.updated_at
        """

    static func decode(_ row: PostgresRow) throws -> SavedSegment {
        let (appID, name, description, version, definition, createdBy, createdAt, updatedAt) =
            try row.decode((Int64, String, String?, Int32, String, String, Date, Date).self)
        return SavedSegment(
            appID: appID, name: name, description: description, version: Int(version),
            segment: try CampaignJSON.decode(Segment.self, from: definition), createdBy: createdBy, createdAt: createdAt,
            updatedAt: updatedAt)
    }

    public func create(
        appID: Int64, name: String, description: String?, segment: Segment, actor: String
    ) async throws
        -> SegmentSave
    {
        try await DatabaseMetrics.measure("segments.create") {
            let definition = try CampaignJSON.encode(segment)
            try await plan(appID: appID, segment: segment)
            return try await client.withDomainTransaction(logger: logger) { connection -> SegmentSave in
                let made = try await connection.query(
                    """
                    INSERT INTO segments (app_id, name, description, created_by) VALUES (\(appID), \(name), \(description), \(actor))
                    ON CONFLICT (app_id, name) WHERE archived_at IS NULL DO NOTHING
                    RETURNING id
                    """, logger: logger
                ).collect().first?.decode(Int64.self)
                guard let id = made else { return .nameTaken }
                try await connection.query(
                    """
                    INSERT INTO segment_versions (app_id, segment_id, version, definition, created_by)
                    VALUES (\(appID), \(id), 1, \(definition)::jsonb, \(actor))
                    """, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "segment.create", appID: appID,
                    details: ["name": .string(name), "version": .int(1)], logger: logger)
                return try await Self.fetch(appID: appID, id: id, version: nil, on: connection, logger: logger).map(SegmentSave.saved)
                    ?? .unknown
            }
        }
    }

    public func update(
        appID: Int64, name: String, segment: Segment?, description: String??, actor: String
    ) async throws
        -> SegmentSave
    {
        try await DatabaseMetrics.measure("segments.update") {
            let definition = try segment.map { try CampaignJSON.encode($0) }
            if let segment { try await plan(appID: appID, segment: segment) }
            let setDescription = description != nil
            return try await client.withDomainTransaction(logger: logger) { connection -> SegmentSave in
                let found = try await connection.query(
                    """
                    UPDATE segments SET
                        latest_version = latest_version + CASE WHEN \(definition)::text IS NULL THEN 0 ELSE 1 END,
                        description = CASE WHEN \(setDescription) THEN \(description ?? nil) ELSE description END,
                        updated_at = now()
                    WHERE app_id = \(appID) AND name = \(name) AND archived_at IS NULL
                    RETURNING id, latest_version
                    """, logger: logger
                ).collect().first
                guard let (id, version) = try found?.decode((Int64, Int32).self) else { return .unknown }
                if let definition {
                    try await connection.query(
                        """
                        INSERT INTO segment_versions (app_id, segment_id, version, definition, created_by)
                        VALUES (\(appID), \(id), \(version), \(definition)::jsonb, \(actor))
                        """, logger: logger)
                }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "segment.update", appID: appID,
                    details: ["name": .string(name), "version": .int(Int(version))], logger: logger)
                return try await Self.fetch(appID: appID, id: id, version: nil, on: connection, logger: logger).map(SegmentSave.saved)
                    ?? .unknown
            }
        }
    }

    public func segment(appID: Int64, name: String, version: Int?) async throws -> SavedSegment? {
        try await DatabaseMetrics.measure("segments.get") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM segments s
                JOIN segment_versions v ON v.app_id = s.app_id AND v.segment_id = s.id
                 AND v.version = coalesce(\(version.map { Int32($0) })::integer, s.latest_version)
                WHERE s.app_id = \(appID) AND s.name = \(name) AND s.archived_at IS NULL
                """, logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func segments(appID: Int64) async throws -> [SavedSegment] {
        try await DatabaseMetrics.measure("segments.list") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM segments s
                JOIN segment_versions v ON v.app_id = s.app_id AND v.segment_id = s.id AND v.version = s.latest_version
                WHERE s.app_id = \(appID) AND s.archived_at IS NULL
                ORDER BY s.name
                """, logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func archive(appID: Int64, name: String, actor: String) async throws -> Bool {
        try await DatabaseMetrics.measure("segments.archive") {
            try await client.withDomainTransaction(logger: logger) { connection -> Bool in
                let rows = try await connection.query(
                    """
                    UPDATE segments SET archived_at = now(), updated_at = now()
                    WHERE app_id = \(appID) AND name = \(name) AND archived_at IS NULL
                    RETURNING id
                    """, logger: logger
                ).collect()
                guard !rows.isEmpty else { return false }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "segment.archive", appID: appID, details: ["name": .string(name)],
                    logger: logger)
                return true
            }
        }
    }

    public func evaluate(appID: Int64, segment: Segment, sample: Int, now: Date) async throws -> (count: Int, sample: [Device]) {
        (try await count(appID: appID, segment: segment, now: now), try await self.sample(appID: appID, segment: segment, now: now, limit: sample))
    }

    /// How many of the app's valid devices the segment matches at `now`.
    public func count(appID: Int64, segment: Segment, now: Date) async throws -> Int {
        try await DatabaseMetrics.measure("segments.count") {
            let events = try await EventLookup.choose(appID: appID, segments: [segment], client: client, logger: logger)
            let rows = try await client.query(
                try Self.countQuery(appID: appID, segment: segment, now: now, events: events), logger: logger)
            return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
        }
    }

    /// Up to `limit` of the matching devices, by ID.
    public func sample(appID: Int64, segment: Segment, now: Date, limit: Int) async throws -> [Device] {
        guard limit > 0 else { return [] }
        return try await DatabaseMetrics.measure("segments.sample") {
            let events = try await EventLookup.choose(appID: appID, segments: [segment], client: client, logger: logger)
            var sql = SQLBuilder("SELECT \(DeviceRow.columns) FROM devices WHERE ")
            try Self.appendMatch(appID: appID, segment: segment, now: now, events: events, to: &sql)
            sql.append(" ORDER BY id LIMIT ")
            sql.bind(limit)
            let rows = try await client.query(sql.query, logger: logger)
            return try await rows.collect().map(DeviceRow.decode)
        }
    }

    /// Plans the segment's count without running it (`EXPLAIN`), before a version is saved: a
    /// condition the database cannot run is refused with the database's error, and nothing is
    /// stored that no campaign could use.
    func plan(appID: Int64, segment: Segment) async throws {
        let events = try await EventLookup.choose(appID: appID, segments: [segment], client: client, logger: logger)
        let query = try Self.countQuery(appID: appID, segment: segment, now: Date(), events: events, explain: "EXPLAIN")
        _ = try await client.query(query, logger: logger).collect()
    }

    /// PostgreSQL's plan for the count, run (`EXPLAIN (ANALYZE, BUFFERS)`), for `herald bench segments`.
    public func explainCount(appID: Int64, segment: Segment, now: Date) async throws -> [String] {
        let events = try await EventLookup.choose(appID: appID, segments: [segment], client: client, logger: logger)
        let query = try Self.countQuery(
            appID: appID, segment: segment, now: now, events: events, explain: "EXPLAIN (ANALYZE, BUFFERS)")
        return try await client.query(query, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// The count of the segment's devices, behind `explain` when given: what ``count``,
    /// ``plan`` and ``explainCount`` send.
    static func countQuery(
        appID: Int64, segment: Segment, now: Date, events: EventLookup, explain: String? = nil
    ) throws
        -> PostgresQuery
    {
        var sql = SQLBuilder((explain.map { $0 + " " } ?? "") + "SELECT count(*) FROM devices WHERE ")
        try appendMatch(appID: appID, segment: segment, now: now, events: events, to: &sql)
        return sql.query
    }

    /// The app's valid devices for which the segment is true (unknown counts as false).
    static func appendMatch(appID: Int64, segment: Segment, now: Date, events: EventLookup, to sql: inout SQLBuilder) throws {
        sql.append("app_id = ")
        sql.bind(appID)
        sql.append(" AND invalidated_at IS NULL AND (")
        try SegmentQuery.append(segment, now: now, events: events, to: &sql)
        sql.append(")")
    }

    private static func fetch(
        appID: Int64, id: Int64, version: Int?, on connection: PostgresConnection, logger: Logger
    )
        async throws -> SavedSegment?
    {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM segments s
            JOIN segment_versions v ON v.app_id = s.app_id AND v.segment_id = s.id
             AND v.version = coalesce(\(version.map { Int32($0) })::integer, s.latest_version)
            WHERE s.app_id = \(appID) AND s.id = \(id)
            """, logger: logger)
        return try await rows.collect().first.map(decode)
    }
}
