import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Writes webhook messages inside the transaction of what they report, so an event is queued
/// exactly when its change commits (docs/webhooks.md). One row per endpoint that takes the
/// type: the app's own endpoints and the endpoints for every app.
enum WebhookOutbox {
    /// Queues `type` with `data`, a JSON object.
    static func enqueue(
        _ type: WebhookEventType, appID: Int64, data: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO webhook_messages (endpoint_id, type, data)
            SELECT e.id, \(type.rawValue), \(data)::jsonb
            FROM webhook_endpoints e
            WHERE (e.app_id = \(appID) OR e.app_id IS NULL) AND \(type.rawValue) = ANY (e.events)
            """, logger: logger)
    }

    /// A campaign that finished, as `campaign.completed` or `campaign.failed`.
    static func campaignFinished(
        _ campaign: Campaign, bundleID: String, on connection: PostgresConnection, logger: Logger
    )
        async throws
    {
        let type: WebhookEventType
        switch campaign.state {
        case .completed: type = .campaignCompleted
        case .failed: type = .campaignFailed
        default: return
        }
        let counters = campaign.counters
        let data = CampaignFinished(
            app: bundleID, campaignID: campaign.publicID.canonicalString, name: campaign.name,
            state: campaign.state.rawValue, failureReason: campaign.failureReason,
            audienceSize: counters.audienceSize, accepted: counters.accepted, failed: counters.failed,
            invalidated: counters.invalidated, skipped: counters.skipped, deferred: counters.deferred,
            unsent: counters.unsent, heldOut: counters.heldOut, startedAt: campaign.startedAt,
            finishedAt: campaign.finishedAt ?? Date())
        try await enqueue(type, appID: campaign.appID, data: try encode(data), on: connection, logger: logger)
    }

    static func encode(_ value: some Encodable) throws -> String {
        try CanonicalJSON.text(value)
    }

    /// `campaign.completed` / `campaign.failed` data.
    struct CampaignFinished: Encodable {
        var app: String
        var campaignID: String
        var name: String
        var state: String
        var failureReason: String?
        var audienceSize: Int
        var accepted: Int
        var failed: Int
        var invalidated: Int
        var skipped: Int
        var deferred: Int
        var unsent: Int
        var heldOut: Int
        var startedAt: Date?
        var finishedAt: Date
    }
}
