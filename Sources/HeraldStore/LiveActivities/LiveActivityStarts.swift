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
    ///
    /// A start that names a broadcast channel (`inputPushChannel`) needs one of the app's
    /// active channels, free or already bound to this activity (it is bound here), and an
    /// audience narrowed to the channel's environment: a device of the other one could not
    /// hear it.
    static func prepare(
        _ start: LiveActivityStart, appID: Int64, environment: APNSEnvironment?, on connection: PostgresConnection, logger: Logger
    ) async throws {
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
        if let channel = start.inputPushChannel {
            try await bindChannel(channel, start: start, appID: appID, environment: environment, on: connection, logger: logger)
        }
    }

    private static func bindChannel(
        _ channel: String, start: LiveActivityStart, appID: Int64, environment: APNSEnvironment?,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let field = "pushOptions.liveActivity.inputPushChannel"
        let found = try await connection.query(
            """
            SELECT environment, activity_id FROM broadcast_channels
            WHERE app_id = \(appID) AND channel_id = \(channel) AND state = 'active'
            FOR UPDATE
            """, logger: logger
        ).collect().first
        guard let (channelEnvironment, boundTo) = try found?.decode((String, String?).self) else {
            throw ValidationError(
                field: field, reason: "no active broadcast channel of this app has this ID (create one: POST /v1/apps/{bundleID}/channels)")
        }
        guard environment?.rawValue == channelEnvironment else {
            throw ValidationError(
                field: "audience.environment",
                reason: "the channel is a \(channelEnvironment) channel: narrow the audience to \(channelEnvironment)")
        }
        if let boundTo {
            guard boundTo == start.activityID else {
                throw ValidationError(field: field, reason: "the channel carries another activity's updates (\(boundTo))")
            }
            return
        }
        let other = try await connection.query(
            """
            SELECT channel_id FROM broadcast_channels
            WHERE app_id = \(appID) AND activity_id = \(start.activityID) AND environment = \(channelEnvironment)
              AND state = 'active'
            """, logger: logger
        ).collect().first
        if other != nil {
            throw ValidationError(
                field: field, reason: "the activity already has a \(channelEnvironment) channel: name that one")
        }
        try await connection.query(
            """
            UPDATE broadcast_channels SET activity_id = \(start.activityID)
            WHERE app_id = \(appID) AND channel_id = \(channel)
            """, logger: logger)
    }

    /// After a batch: the devices APNs accepted a start for are recorded under the campaign's
    /// activity (one row per device and attributes type, the latest start winning).
    static func record(
        campaignID: Int64, appID: Int64, accepted deviceIDs: [Int64], on connection: PostgresConnection, logger: Logger
    )
        async throws
    {
        guard !deviceIDs.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO live_activity_starts (app_id, device_id, part, attributes_type, activity_id, campaign_id)
            SELECT c.app_id, d.id, d.part, c.push_options->'liveActivity'->>'attributesType',
                   c.push_options->'liveActivity'->>'activityID', c.id
            FROM campaigns c JOIN devices d ON d.app_id = c.app_id AND d.id = ANY(\(deviceIDs)::bigint[])
            WHERE c.id = \(campaignID) AND c.app_id = \(appID) AND c.push_options ? 'liveActivity'
            ON CONFLICT (app_id, device_id, attributes_type, part)
                DO UPDATE SET activity_id = EXCLUDED.activity_id, campaign_id = EXCLUDED.campaign_id, started_at = EXCLUDED.started_at
            """, logger: logger)
    }
}
