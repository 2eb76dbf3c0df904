import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Fills in the conditions of the saved segment an audience names (`audience.savedSegment`):
/// the version it gives, else the latest. Estimates resolve it each time; scheduling pins it
/// (docs/segments.md "In campaigns").
enum SavedSegmentResolver {
    /// `filter` with ``AudienceFilter/savedSegmentDefinition`` set and the reference's version
    /// filled in; `filter` itself when it names no segment. Throws a `ValidationError` on
    /// `audience.savedSegment` when the app has no live segment of that name, or not that version.
    static func resolve(
        _ filter: AudienceFilter, appID: Int64, logger: Logger,
        query: (PostgresQuery) async throws -> PostgresRowSequence
    ) async throws -> AudienceFilter {
        guard let reference = filter.savedSegment else { return filter }
        let version = reference.version.map { Int32(clamping: $0) }
        let rows = try await query(
            """
            SELECT v.version, v.definition::text FROM segments s
            JOIN segment_versions v ON v.app_id = s.app_id AND v.segment_id = s.id
             AND v.version = coalesce(\(version)::integer, s.latest_version)
            WHERE s.app_id = \(appID) AND s.name = \(reference.name) AND s.archived_at IS NULL
            """)
        guard let row = try await rows.collect().first else {
            throw ValidationError(
                field: "audience.savedSegment",
                reason: reference.version.map { "the app's segment \"\(reference.name)\" has no version \($0)" }
                    ?? "the app has no segment named \"\(reference.name)\"")
        }
        let (found, definition) = try row.decode((Int32, String).self)
        var resolved = filter
        resolved.savedSegment = SegmentReference(name: reference.name, version: Int(found))
        resolved.savedSegmentDefinition = try CampaignJSON.decode(Segment.self, from: definition)
        return resolved
    }

    static func resolve(
        _ filter: AudienceFilter, appID: Int64, client: PostgresClient, logger: Logger
    ) async throws
        -> AudienceFilter
    {
        try await resolve(filter, appID: appID, logger: logger) { try await client.query($0, logger: logger) }
    }

    static func resolve(
        _ filter: AudienceFilter, appID: Int64, connection: PostgresConnection, logger: Logger
    )
        async throws -> AudienceFilter
    {
        try await resolve(filter, appID: appID, logger: logger) { try await connection.query($0, logger: logger) }
    }

    /// Pins the version of the campaign's saved segment into its stored audience, so every
    /// chunk reads the conditions it was scheduled with.
    static func pin(
        campaignID: Int64, appID: Int64, audienceJSON: String, connection: PostgresConnection, logger: Logger
    ) async throws {
        let audience = try CampaignJSON.decode(AudienceFilter.self, from: audienceJSON)
        guard audience.savedSegment != nil else { return }
        let pinned = try CampaignJSON.encode(try await resolve(audience, appID: appID, connection: connection, logger: logger))
        try await connection.query(
            "UPDATE campaigns SET audience = \(pinned)::jsonb WHERE id = \(campaignID)", logger: logger)
    }
}
