import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Broadcast channels and the broadcasts of each update in PostgreSQL (migration 0022).
public struct PostgresBroadcastChannelRepository: BroadcastChannelRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    static let columns = """
        c.app_id, c.channel_id, c.environment, c.storage_policy, c.activity_id, c.state, c.created_by, c.created_at,
        c.ended_at, c.last_broadcast_at, c.broadcasts
        """

    static func decode(_ row: PostgresRow) throws -> BroadcastChannel {
        let (appID, id, environment, policy, activityID, state, createdBy, createdAt, endedAt, lastBroadcastAt, broadcasts) =
            try row.decode((Int64, String, String, Int16, String?, String, String, Date, Date?, Date?, Int32).self)
        guard let channelID = BroadcastChannelID(id) else {
            throw StoreError.unknownValue(column: "broadcast_channels.channel_id", value: id)
        }
        guard let storagePolicy = ChannelStoragePolicy(rawValue: Int(policy)) else {
            throw StoreError.unknownValue(column: "broadcast_channels.storage_policy", value: "\(policy)")
        }
        return BroadcastChannel(
            appID: appID, channelID: channelID,
            environment: try StoreError.decode(environment, as: APNSEnvironment.self, column: "broadcast_channels.environment"),
            storagePolicy: storagePolicy, activityID: activityID,
            state: try StoreError.decode(state, as: BroadcastChannel.State.self, column: "broadcast_channels.state"),
            createdBy: createdBy, createdAt: createdAt, endedAt: endedAt, lastBroadcastAt: lastBroadcastAt,
            broadcasts: Int(broadcasts))
    }

    public func activeChannel(appID: Int64, activityID: String, environment: APNSEnvironment) async throws -> BroadcastChannel? {
        try await DatabaseMetrics.measure("channels.active") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c
                WHERE c.app_id = \(appID) AND c.activity_id = \(activityID) AND c.environment = \(environment.rawValue)
                  AND c.state = 'active'
                """, logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func insert(
        appID: Int64, channelID: BroadcastChannelID, environment: APNSEnvironment, storagePolicy: ChannelStoragePolicy,
        activityID: String?, actor: String, now: Date
    ) async throws -> ChannelBinding {
        try await DatabaseMetrics.measure("channels.insert") {
            try await client.withDomainTransaction(logger: logger) { connection -> ChannelBinding in
                if let activityID {
                    // The activity is made on its first channel, as on its first token.
                    let state = try await connection.query(
                        """
                        WITH made AS (
                            INSERT INTO live_activities (app_id, activity_id, created_at) VALUES (\(appID), \(activityID), \(now))
                            ON CONFLICT (app_id, activity_id) DO NOTHING
                            RETURNING state
                        )
                        SELECT state FROM made
                        UNION ALL SELECT state FROM live_activities WHERE app_id = \(appID) AND activity_id = \(activityID)
                        LIMIT 1
                        """, logger: logger
                    ).collect().first?.decode(String.self)
                    if state == LiveActivity.State.ended.rawValue { return .activityEnded }
                    let held = try await connection.query(
                        """
                        SELECT channel_id FROM broadcast_channels
                        WHERE app_id = \(appID) AND activity_id = \(activityID) AND environment = \(environment.rawValue)
                          AND state = 'active'
                        FOR UPDATE
                        """, logger: logger
                    ).collect().first?.decode(String.self)
                    if let held, let id = BroadcastChannelID(held) { return .activityHasChannel(id) }
                }
                let rows = try await connection.query(
                    """
                    INSERT INTO broadcast_channels AS c (app_id, channel_id, environment, storage_policy, activity_id, created_by, created_at)
                    VALUES (\(appID), \(channelID.value), \(environment.rawValue), \(Int16(storagePolicy.rawValue)), \(activityID),
                            \(actor), \(now))
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
                guard let channel = try await rows.collect().first.map(Self.decode) else { throw StoreError.missingRow }
                var details: [String: PayloadValue] = [
                    "channelID": .string(channelID.value), "environment": .string(environment.rawValue),
                    "storagePolicy": .int(storagePolicy.rawValue),
                ]
                if let activityID { details["activityID"] = .string(activityID) }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "channel.create", appID: appID, details: details, logger: logger)
                return .stored(channel)
            }
        }
    }

    public func channel(appID: Int64, channelID: BroadcastChannelID) async throws -> BroadcastChannel? {
        try await DatabaseMetrics.measure("channels.get") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c
                WHERE c.app_id = \(appID) AND c.channel_id = \(channelID.value)
                """, logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func channels(
        appID: Int64, state: BroadcastChannel.State?, activityID: String?, cursor: String?, limit: Int
    )
        async throws -> BroadcastChannelPage
    {
        try await DatabaseMetrics.measure("channels.list") {
            // Newest first; the cursor is the last row's creation time (microseconds) and ID.
            let after = cursor.flatMap { NewestFirstCursor($0) }
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c
                WHERE c.app_id = \(appID) AND (\(state?.rawValue)::text IS NULL OR c.state = \(state?.rawValue))
                  AND (\(activityID)::text IS NULL OR c.activity_id = \(activityID))
                  AND (\(after?.microseconds)::bigint IS NULL
                       OR (c.created_at, c.channel_id)
                          < (timestamptz 'epoch' + \(after?.microseconds ?? 0) * interval '1 microsecond', \(after?.key ?? "")))
                ORDER BY c.created_at DESC, c.channel_id DESC
                LIMIT \(limit + 1)
                """, logger: logger)
            var channels = try await rows.collect().map(Self.decode)
            var next: String?
            if channels.count > limit {
                channels.removeLast()
                next = channels.last.map { NewestFirstCursor(after: $0.createdAt, key: $0.channelID.value).description }
            }
            return BroadcastChannelPage(channels: channels, nextCursor: next)
        }
    }

    public func end(
        appID: Int64, channelID: BroadcastChannelID, as state: BroadcastChannel.State, reason: String?, actor: String
    ) async throws -> BroadcastChannel? {
        try await DatabaseMetrics.measure("channels.end") {
            try await client.withDomainTransaction(logger: logger) { connection -> BroadcastChannel? in
                let rows = try await connection.query(
                    """
                    UPDATE broadcast_channels c SET state = \(state.rawValue), ended_at = coalesce(ended_at, \(Date()))
                    WHERE c.app_id = \(appID) AND c.channel_id = \(channelID.value)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
                guard let channel = try await rows.collect().first.map(Self.decode) else { return nil }
                var details: [String: PayloadValue] = ["channelID": .string(channelID.value), "state": .string(state.rawValue)]
                if let reason { details["reason"] = .string(reason) }
                try await AuditLog.record(
                    on: connection, actor: actor, action: state == .gone ? "channel.gone" : "channel.delete", appID: appID,
                    details: details, logger: logger)
                return channel
            }
        }
    }

    public func activeChannels(appID: Int64, activityID: String) async throws -> [BroadcastChannel] {
        try await DatabaseMetrics.measure("channels.ofActivity") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM broadcast_channels c
                WHERE c.app_id = \(appID) AND c.activity_id = \(activityID) AND c.state = 'active'
                ORDER BY c.environment
                """, logger: logger)
            return try await rows.collect().map(Self.decode)
        }
    }

    public func broadcasts(updateID: Int64) async throws -> [BroadcastRecord] {
        try await DatabaseMetrics.measure("channels.broadcasts") {
            let rows = try await client.query(
                """
                SELECT channel_id, environment, outcome, status, reason, request_id, recorded_at
                FROM live_activity_broadcasts WHERE update_id = \(updateID) ORDER BY environment, channel_id
                """, logger: logger)
            var records = [BroadcastRecord]()
            for try await row in rows {
                let (id, environment, outcome, status, reason, requestID, recordedAt) =
                    try row.decode((String, String, String, Int32?, String?, UUID?, Date).self)
                guard let channelID = BroadcastChannelID(id) else { continue }
                records.append(
                    BroadcastRecord(
                        channelID: channelID,
                        environment: try StoreError.decode(environment, as: APNSEnvironment.self, column: "live_activity_broadcasts.environment"),
                        outcome: try StoreError.decode(outcome, as: BroadcastRecord.Outcome.self, column: "live_activity_broadcasts.outcome"),
                        status: status.map(Int.init), reason: reason, requestID: requestID, recordedAt: recordedAt))
            }
            return records
        }
    }

    public func record(_ broadcast: BroadcastRecord, lease: LiveActivityLease) async throws -> Bool {
        try await DatabaseMetrics.measure("channels.recordBroadcast") {
            try await client.withDomainTransaction(logger: logger) { connection -> Bool in
                let held = try await connection.query(
                    """
                    SELECT 1 FROM live_activity_updates
                    WHERE id = \(lease.update.id) AND lease_token = \(lease.token) AND state = 'sending'
                    FOR UPDATE
                    """, logger: logger
                ).collect()
                guard !held.isEmpty else { return false }
                let inserted = try await connection.query(
                    """
                    INSERT INTO live_activity_broadcasts (update_id, channel_id, environment, outcome, status, reason, request_id)
                    VALUES (\(lease.update.id), \(broadcast.channelID.value), \(broadcast.environment.rawValue),
                            \(broadcast.outcome.rawValue), \(broadcast.status.map(Int32.init)), \(broadcast.reason),
                            \(broadcast.requestID))
                    ON CONFLICT (update_id, channel_id) DO NOTHING
                    RETURNING update_id
                    """, logger: logger
                ).collect()
                guard !inserted.isEmpty else { return true }
                let appID = lease.update.appID
                if broadcast.outcome == .accepted {
                    try await connection.query(
                        """
                        UPDATE broadcast_channels SET broadcasts = broadcasts + 1, last_broadcast_at = now()
                        WHERE app_id = \(appID) AND channel_id = \(broadcast.channelID.value)
                        """, logger: logger)
                } else if broadcast.reason == APNSReason.channelNotRegistered.rawValue {
                    let gone = try await connection.query(
                        """
                        UPDATE broadcast_channels SET state = 'gone', ended_at = now()
                        WHERE app_id = \(appID) AND channel_id = \(broadcast.channelID.value) AND state = 'active'
                        RETURNING channel_id
                        """, logger: logger
                    ).collect()
                    if !gone.isEmpty {
                        try await AuditLog.record(
                            on: connection, actor: "engine", action: "channel.gone", appID: appID,
                            details: [
                                "channelID": .string(broadcast.channelID.value),
                                "reason": .string(APNSReason.channelNotRegistered.rawValue),
                            ], logger: logger)
                    }
                }
                return true
            }
        }
    }
}
