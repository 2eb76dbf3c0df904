import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO
import Synchronization

/// The journeys' graphs by journey and version, read once: a version never changes once saved,
/// so what is read stays true for the life of the process (of one database).
public final class JourneyDefinitions: Sendable {
    private let known = Mutex([Key: JourneyDefinition]())

    struct Key: Hashable {
        var journeyID: Int64
        var version: Int
    }

    public init() {}

    /// The graphs of the versions asked for; a version that no longer reads (it cannot happen
    /// for what was checked when saved) is left out.
    func definitions(
        _ wanted: Set<Key>, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Key: JourneyDefinition] {
        var found = known.withLock { cache in cache.filter { wanted.contains($0.key) } }
        let missing = wanted.subtracting(found.keys)
        guard !missing.isEmpty else { return found }
        let ids = missing.map(\.journeyID)
        let versions = missing.map { Int32($0.version) }
        let rows = try await connection.query(
            """
            SELECT v.journey_id, v.version, v.definition::text FROM journey_versions v
            JOIN unnest(\(ids)::bigint[], \(versions)::integer[]) AS w(journey_id, version)
              ON w.journey_id = v.journey_id AND w.version = v.version
            """, logger: logger)
        var read = [Key: JourneyDefinition]()
        for try await (journeyID, version, text) in rows.decode((Int64, Int32, String).self) {
            guard let json = try? CampaignJSON.decode(PayloadValue.self, from: text),
                let definition = try? JourneyDefinition(json: json)
            else {
                logger.error("journey \(journeyID) version \(version): its stored graph does not read")
                continue
            }
            read[Key(journeyID: journeyID, version: Int(version))] = definition
        }
        known.withLock { cache in cache.merge(read) { $1 } }
        found.merge(read) { $1 }
        return found
    }
}
