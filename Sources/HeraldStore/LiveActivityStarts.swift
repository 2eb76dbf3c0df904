import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// A Live Activity start campaign's side of the store (docs/live-activities.md "Starting on an
/// audience"): its activity is made when it is scheduled, and each device it starts on is
/// recorded under the activity, so the update token the device sends back joins it.
enum LiveActivityStarts {
    /// At scheduling: refuses an attributes type no device holds a start token for (a typo
    /// would otherwise send to nobody), and an activity ID whose activity has ended; creates
    /// the activity otherwise.
    static func prepare(_ start: LiveActivityStart, appID: Int64, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let holders = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM live_activity_start_tokens
                           WHERE app_id = \(appID) AND attributes_type = \(start.attributesType))
            """, logger: logger)
        guard try await holders.collect().first?.decode(Bool.self) == true else {
            throw ValidationError(
                field: "pushOptions.liveActivity.attributesType",
                reason: "no device of this app holds a push-to-start token for \(start.attributesType)")
        }
        let rows = try await connection.query(
            """
            INSERT INTO live_activities (app_id, activity_id, attributes_type)
            VALUES (\(appID), \(start.activityID), \(start.attributesType))
            ON CONFLICT (app_id, activity_id)
                DO UPDATE SET attributes_type = coalesce(live_activities.attributes_type, EXCLUDED.attributes_type)
            RETURNING state
            """, logger: logger)
        guard try await rows.collect().first?.decode(String.self) == LiveActivity.State.active.rawValue else {
            throw ValidationError(
                field: "pushOptions.liveActivity.activityID",
                reason: "this activity has ended; start a new one under another ID")
        }
    }

    /// After a batch: the devices APNs accepted a start for are recorded under the campaign's
    /// activity (one row per device and attributes type, the latest start winning).
    static func record(campaignID: Int64, appID: Int64, accepted deviceIDs: [Int64], on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !deviceIDs.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO live_activity_starts (app_id, device_id, attributes_type, activity_id, campaign_id)
            SELECT c.app_id, d.id, c.push_options->'liveActivity'->>'attributesType',
                   c.push_options->'liveActivity'->>'activityID', c.id
            FROM campaigns c, unnest(\(deviceIDs)::bigint[]) AS d(id)
            WHERE c.id = \(campaignID) AND c.app_id = \(appID) AND c.push_options ? 'liveActivity'
            ON CONFLICT (app_id, device_id, attributes_type)
                DO UPDATE SET activity_id = EXCLUDED.activity_id, campaign_id = EXCLUDED.campaign_id, started_at = now()
            """, logger: logger)
    }
}
