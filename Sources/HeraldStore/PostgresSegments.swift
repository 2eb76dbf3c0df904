import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Evaluates segments against an app's valid devices (docs/segments.md).
public struct PostgresSegments: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    /// How many of the app's valid devices the segment matches at `now`.
    public func count(appID: Int64, segment: Segment, now: Date) async throws -> Int {
        try await DatabaseMetrics.measure("segments.count") {
            var sql = SQLBuilder("SELECT count(*) FROM devices WHERE ")
            try Self.appendMatch(appID: appID, segment: segment, now: now, to: &sql)
            let rows = try await client.query(sql.query, logger: logger)
            return Int(try await rows.collect().first?.decode(Int64.self) ?? 0)
        }
    }

    /// Up to `limit` of the matching devices, by ID.
    public func sample(appID: Int64, segment: Segment, now: Date, limit: Int) async throws -> [Device] {
        try await DatabaseMetrics.measure("segments.sample") {
            var sql = SQLBuilder("SELECT \(DeviceRow.columns) FROM devices WHERE ")
            try Self.appendMatch(appID: appID, segment: segment, now: now, to: &sql)
            sql.append(" ORDER BY id LIMIT ")
            sql.bind(limit)
            let rows = try await client.query(sql.query, logger: logger)
            return try await rows.collect().map(DeviceRow.decode)
        }
    }

    /// The app's valid devices for which the segment is true (unknown counts as false).
    static func appendMatch(appID: Int64, segment: Segment, now: Date, to sql: inout SQLBuilder) throws {
        sql.append("app_id = ")
        sql.bind(appID)
        sql.append(" AND invalidated_at IS NULL AND (")
        try SegmentQuery.append(segment, now: now, to: &sql)
        sql.append(") IS TRUE")
    }
}
