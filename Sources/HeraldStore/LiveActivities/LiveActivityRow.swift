import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// How Live Activity rows are read and an update's request is stored (`request` jsonb).
enum LiveActivityRow {
    static let activityColumns = """
        a.app_id, a.activity_id, a.attributes_type, a.state, a.last_timestamp, a.created_at, a.last_update_at, a.ended_at,
        a.dismiss_at
        """

    /// The activity, with its live token count from `tokens` (by activity ID; none: 0).
    static func decodeActivity(_ row: PostgresRow, tokens counts: [String: Int64]) throws -> LiveActivity {
        let (appID, activityID, type, state, last, created, lastUpdate, ended, dismiss) = try row.decode(
            (Int64, String, String?, String, Int64, Date, Date?, Date?, Date?).self)
        let tokens = counts[activityID] ?? 0
        return LiveActivity(
            appID: appID, activityID: activityID, attributesType: type,
            state: try StoreError.decode(state, as: LiveActivity.State.self, column: "live_activities.state"),
            lastTimestamp: Int(last), tokenCount: Int(tokens), createdAt: created, lastUpdateAt: lastUpdate, endedAt: ended,
            dismissAt: dismiss)
    }

    static let updateColumns = """
        u.id, u.app_id, u.activity_id, u.event, u.request::text, u.aps_timestamp, u.priority, u.priority_lowered, u.state,
        u.actor, u.accepted, u.failed, u.dropped, u.superseded, u.created_at, u.finished_at
        """

    static func decodeUpdate(_ row: PostgresRow) throws -> LiveActivityUpdate {
        let cells = row.makeRandomAccess()
        let event = try StoreError.decode(
            try cells[3].decode(String.self), as: Payload.LiveActivityEvent.self, column: "live_activity_updates.event")
        let stored = try CampaignJSON.decode(StoredRequest.self, from: try cells[4].decode(String.self))
        guard let priority = Priority(rawValue: Int(try cells[6].decode(Int16.self))) else {
            throw StoreError.unknownValue(column: "live_activity_updates.priority", value: "\(try cells[6].decode(Int16.self))")
        }
        return LiveActivityUpdate(
            id: try cells[0].decode(Int64.self), appID: try cells[1].decode(Int64.self),
            activityID: try cells[2].decode(String.self), request: try stored.request(event: event),
            timestamp: Int(try cells[5].decode(Int64.self)), priority: priority,
            priorityLowered: try cells[7].decode(Bool.self),
            state: try StoreError.decode(
                try cells[8].decode(String.self), as: LiveActivityUpdate.State.self, column: "live_activity_updates.state"),
            actor: try cells[9].decode(String.self),
            counts: LiveActivityUpdate.Counts(
                accepted: Int(try cells[10].decode(Int32.self)), failed: Int(try cells[11].decode(Int32.self)),
                dropped: Int(try cells[12].decode(Int32.self)), superseded: Int(try cells[13].decode(Int32.self))),
            createdAt: try cells[14].decode(Date.self), finishedAt: try cells[15].decode(Date?.self))
    }

    /// An update's request as stored in `live_activity_updates.request`.
    struct StoredRequest: Codable {
        var contentState: [String: PayloadValue]
        var alert: StoredAlert?
        var staleDate: Date?
        var dismissalDate: Date?
        var relevanceScore: Double?
        var priority: Int?
        var idempotencyKey: String?

        init(_ request: LiveActivityUpdateRequest) {
            contentState = request.contentState
            alert = request.alert.map(StoredAlert.init)
            staleDate = request.staleDate
            dismissalDate = request.dismissalDate
            relevanceScore = request.relevanceScore
            priority = request.priority?.rawValue
            idempotencyKey = request.idempotencyKey
        }

        func request(event: Payload.LiveActivityEvent) throws -> LiveActivityUpdateRequest {
            LiveActivityUpdateRequest(
                event: event, contentState: contentState, alert: try alert?.alert(), staleDate: staleDate,
                dismissalDate: dismissalDate, relevanceScore: relevanceScore, priority: priority.flatMap(Priority.init),
                idempotencyKey: idempotencyKey)
        }
    }

    struct StoredAlert: Codable {
        var title: StoredText?
        var body: StoredText?
        var sound: String?
        var template: String?
        var version: Int?
        var localization: String?
        var variables: [String: PayloadValue]?

        init(_ alert: LiveActivityUpdateRequest.Alert) {
            switch alert {
            case .text(let text):
                title = StoredText(text.title)
                body = StoredText(text.body)
                sound = text.sound
            case .template(let name, let version, let localization, let variables):
                template = name
                self.version = version
                self.localization = localization.rawValue
                self.variables = variables
            }
        }

        func alert() throws -> LiveActivityUpdateRequest.Alert {
            if let template {
                return .template(
                    name: template, version: version,
                    localization: try StoreError.decode(
                        localization ?? "server", as: Campaign.LocalizationMode.self, column: "live_activity_updates.request"),
                    variables: variables ?? [:])
            }
            guard let title, let body else { throw StoreError.unknownValue(column: "live_activity_updates.request", value: "alert") }
            return .text(Payload.LiveActivityAlert(title: title.text, body: body.text, sound: sound))
        }
    }

    struct StoredText: Codable {
        var plain: String?
        var locKey: String?
        var locArgs: [String]?

        init(_ text: Payload.LiveActivityAlert.Text) {
            switch text {
            case .plain(let value): plain = value
            case .localized(let key, let arguments): (locKey, locArgs) = (key, arguments)
            }
        }

        var text: Payload.LiveActivityAlert.Text {
            if let locKey { return .localized(key: locKey, arguments: locArgs ?? []) }
            return .plain(plain ?? "")
        }
    }
}
